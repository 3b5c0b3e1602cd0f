"""GitHub issue completion: Tab after ``#`` offers the repository's open issues (Pi's
``github-issue-autocomplete.ts``, in Python). App only; needs ``gh`` and a GitHub checkout.

The issues are loaded once per session with ``gh issue list`` and filtered locally: a number
prefix first, else ``fuzzy_filter`` over number and title. While loading, a newer keystroke
aborts ``options["signal"]`` and the provider falls back to the one below it.

    pi -e docs/examples/extensions/github_issue_autocomplete.py
"""
import asyncio
import json
import re

from pi_runtime.extensions import ExtensionAPI, fuzzy_filter

MAX_ISSUES = 100
MAX_SUGGESTIONS = 20


def extract_issue_token(before_cursor):
    match = re.search(r"(?:^|[ \t])#([^\s#]*)$", before_cursor)
    return match.group(1) if match else None


def parse_github_repo(url):
    match = re.match(r"^git@github\.com:([^/]+/[^/]+?)(?:\.git)?$", url) or re.match(
        r"^https?://github\.com/([^/]+/[^/]+?)(?:\.git)?$", url)
    return match.group(1) if match else None


async def resolve_github_repo(pi, cwd):
    result = await pi.exec("git", ["remote", "-v"], cwd=cwd, timeout=5)
    if result.code != 0:
        return None, "github-issue-autocomplete: cwd is not a git repository"
    for line in result.stdout.split("\n"):
        columns = line.split()
        repo = parse_github_repo(columns[1]) if len(columns) > 1 else None
        if repo:
            return repo, None
    return None, "github-issue-autocomplete: cwd is not a GitHub repository"


def format_item(issue):
    return {"value": f"#{issue['number']}", "label": f"#{issue['number']}",
            "description": f"[{issue['state'].lower()}] {issue['title']}"}


def filter_issues(issues, query):
    if not query.strip():
        return [format_item(i) for i in issues[:MAX_SUGGESTIONS]]
    if query.isdigit():
        numeric = [format_item(i) for i in issues if str(i["number"]).startswith(query)][:MAX_SUGGESTIONS]
        if numeric:
            return numeric
    return [format_item(i) for i in fuzzy_filter(issues, query, lambda i: f"{i['number']} {i['title']}")][:MAX_SUGGESTIONS]


def issue_provider(current, get_issues):
    class IssueProvider:
        async def get_suggestions(self, lines, cursor_line, cursor_col, options):
            line = lines[cursor_line] if cursor_line < len(lines) else ""
            token = extract_issue_token(line[:cursor_col])
            if token is None:
                return await current.get_suggestions(lines, cursor_line, cursor_col, options)
            issues = await get_issues()
            if options["signal"].aborted or not issues:
                return await current.get_suggestions(lines, cursor_line, cursor_col, options)
            suggestions = filter_issues(issues, token)
            if not suggestions:
                return await current.get_suggestions(lines, cursor_line, cursor_col, options)
            return {"items": suggestions, "prefix": f"#{token}"}

        def apply_completion(self, lines, cursor_line, cursor_col, item, prefix):
            return current.apply_completion(lines, cursor_line, cursor_col, item, prefix)

        def should_trigger_file_completion(self, lines, cursor_line, cursor_col):
            return current.should_trigger_file_completion(lines, cursor_line, cursor_col)

    return IssueProvider()


def extension(pi: ExtensionAPI) -> None:
    async def session_start(event, ctx):
        repo, error = await resolve_github_repo(pi, ctx.cwd)
        if error:
            ctx.ui.notify(error, "error")
            return
        state = {"loading": None, "error_shown": False}

        async def load():
            result = await pi.exec("gh", ["issue", "list", "--repo", repo, "--state", "open", "--limit",
                                          str(MAX_ISSUES), "--json", "number,title,state"], cwd=ctx.cwd, timeout=5)
            if result.code != 0:
                if not state["error_shown"]:
                    state["error_shown"] = True
                    details = result.stderr.strip() or f"exit code {result.code}"
                    ctx.ui.notify(f"github-issue-autocomplete: failed to load issues: {details}", "error")
                return None
            try:
                return json.loads(result.stdout)
            except ValueError:
                if not state["error_shown"]:
                    state["error_shown"] = True
                    ctx.ui.notify("github-issue-autocomplete: failed to parse gh issue list output", "error")
                return None

        async def get_issues():
            # One load per session, shared: shield it so an abandoned completion does not cancel it.
            if state["loading"] is None:
                state["loading"] = asyncio.ensure_future(load())
            return await asyncio.shield(state["loading"])

        state["loading"] = asyncio.ensure_future(load())  # start now; the first '#' waits for it
        ctx.ui.add_autocomplete_provider(lambda current: issue_provider(current, get_issues))

    pi.on("session_start", session_start)
