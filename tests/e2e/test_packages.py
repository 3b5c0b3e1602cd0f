"""``pi install | remove | list | update`` with real sources: a local folder, a git repository made
with ``git init`` here, and a wheel built here and served from a local folder (``--find-links``);
then ``pi -p`` loading what the packages offer (an extension's tool, a prompt template, a skill)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import textwrap
import zipfile
from pathlib import Path
from typing import Any

from e2e_support import MODEL, run_pi, text_reply, tool_reply

EXTENSION = '''
from pydantic import BaseModel


class Params(BaseModel):
    text: str


def extension(pi):
    async def echo(call_id, params, signal, on_update, ctx):
        return "{label}: " + params.text

    pi.register_tool(name="{tool}", description="Echo from a package", params=Params, execute=echo)
'''


def make_package(root: Path, *, tool: str = "pkg_echo", label: str = "local", manifest: bool = True) -> Path:
    """A package folder with an extension, a prompt template and a skill."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "echo_ext.py").write_text(EXTENSION.replace("{label}", label).replace("{tool}", tool))
    (root / "resources" / "prompts").mkdir(parents=True)
    (root / "resources" / "prompts" / "review.md").write_text("---\ndescription: Review\n---\nReview this: $ARGUMENTS\n")
    (root / "resources" / "prompts" / "draft.md").write_text("Draft prompt\n")
    (root / "resources" / "skills" / "greet").mkdir(parents=True)
    (root / "resources" / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets people warmly\n---\nSay hello.\n")
    if manifest:
        (root / "pyproject.toml").write_text(textwrap.dedent("""
            [project]
            name = "demo"
            [tool.pi]
            extensions = ["src/echo_ext.py"]
            prompts = ["resources/prompts/*.md", "!resources/prompts/draft.md"]
            skills = ["resources/skills"]
        """))
    return root


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True)
    return done.stdout.strip()


def settings(env: dict[str, str], project: bool = False) -> dict[str, Any]:
    path = Path(env["PI_TEST_PROJECT"], ".pi", "settings.json") if project else Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    return json.loads(path.read_text())


def system_and_user_texts(request: Any) -> str:
    parts = []
    for message in request.json()["messages"]:
        content = message.get("content") or ""
        parts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return "\n".join(parts)


def declared_tools(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.json().get("tools", [])]


def test_local_package_installs_in_place_and_its_resources_load(loopback, env, tmp_path):
    make_package(tmp_path / "demo")
    result = run_pi(["install", "../demo"], env)
    assert (result.returncode, result.stdout) == (0, "Installing ../demo...\nInstalled ../demo\n"), result.stderr
    # Recorded relative to the settings file's folder, as Pi does.
    assert settings(env)["packages"] == ["../demo"]
    again = run_pi(["install", str(tmp_path / "demo")], env)  # the same package: no second entry
    assert again.returncode == 0 and settings(env)["packages"] == ["../demo"]
    listed = run_pi(["list"], env)
    assert listed.stdout == f"User packages:\n  ../demo\n    {tmp_path / 'demo'}\n"

    loopback.push(tool_reply("pkg_echo", {"text": "hi"}), text_reply("Echoed."))
    result = run_pi(["-p", "/review the diff", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    first = loopback.requests[0]
    assert "pkg_echo" in declared_tools(first)
    sent = system_and_user_texts(first)
    assert "Review this: the diff" in sent  # the package's prompt template expanded
    assert "Greets people warmly" in sent  # its skill is listed to the model
    assert "tool" in [m["role"] for m in loopback.requests[1].json()["messages"]]
    assert "local: hi" in system_and_user_texts(loopback.requests[1])

    loopback.push(text_reply("x"))
    assert run_pi(["-p", "/draft", "--model", MODEL], env).returncode == 0  # excluded by the manifest
    assert "Draft prompt" not in system_and_user_texts(loopback.requests[2])

    # -ne turns package extensions off like any discovered extension.
    loopback.push(text_reply("y"))
    assert run_pi(["-p", "hi", "-ne", "--model", MODEL], env).returncode == 0
    assert "pkg_echo" not in declared_tools(loopback.requests[3])

    removed = run_pi(["remove", "../demo"], env)
    assert (removed.returncode, removed.stdout) == (0, "Removing ../demo...\nRemoved ../demo\n")
    assert settings(env)["packages"] == []
    assert (tmp_path / "demo" / "src" / "echo_ext.py").exists()  # local packages are never touched
    missing = run_pi(["remove", "../demo"], env)
    assert (missing.returncode, missing.stderr) == (1, "No matching package found for ../demo\n")


def test_settings_filters_narrow_a_package(loopback, env, tmp_path):
    make_package(tmp_path / "demo")
    path = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    data = json.loads(path.read_text())
    data["packages"] = [{"source": "../demo", "extensions": [], "skills": ["!resources/skills/greet"]}]
    path.write_text(json.dumps(data))
    assert run_pi(["list"], env).stdout.splitlines()[1] == "  ../demo (filtered)"
    loopback.push(text_reply("ok"))
    assert run_pi(["-p", "/review it", "--model", MODEL], env).returncode == 0
    request = loopback.requests[0]
    assert "pkg_echo" not in declared_tools(request)
    assert "Greets people warmly" not in system_and_user_texts(request)
    assert "Review this: it" in system_and_user_texts(request)


def test_git_package_clones_pins_updates_and_removes(loopback, env, tmp_path):
    repo = make_package(tmp_path / "repo", tool="git_echo", label="v1", manifest=False)
    # No [tool.pi]: the conventional folders are read.
    (repo / "extensions").mkdir()
    (repo / "src" / "echo_ext.py").rename(repo / "extensions" / "echo_ext.py")
    (repo / "resources" / "prompts").rename(repo / "prompts")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    git(repo, "tag", "v1")
    source = f"git:file://{repo}"
    result = run_pi(["install", source], env, timeout=60)
    assert result.returncode == 0, result.stderr
    clone = Path(env["PI_CODING_AGENT_DIR"], "git", "file", str(repo).lstrip("/"))
    assert (clone / "extensions" / "echo_ext.py").is_file()
    assert settings(env)["packages"] == [source]
    assert run_pi(["install", f"{source}@v1", "-l"], env, timeout=60).returncode == 0  # pinned, in the project
    pinned = Path(env["PI_TEST_PROJECT"], ".pi", "git", "file", str(repo).lstrip("/"))
    assert settings(env, project=True)["packages"] == [f"{source}@v1"]

    (repo / "extensions" / "echo_ext.py").write_text(EXTENSION.replace("{label}", "v2").replace("{tool}", "git_echo"))
    git(repo, "commit", "-qam", "v2")
    old, new = git(repo, "rev-parse", "v1"), git(repo, "rev-parse", "HEAD")
    update = run_pi(["update", "--extensions", "--approve"], env, timeout=60)
    assert update.returncode == 0, update.stderr
    assert update.stdout == f"Updated 1 package:\n  {source} {old[:7]} -> {new[:7]}\n"
    assert git(clone, "rev-parse", "HEAD") == new
    assert git(pinned, "rev-parse", "HEAD") == old  # a pinned ref does not move
    assert run_pi(["update", source], env, timeout=60).stdout == f"{source} is already up to date\n"

    loopback.push(tool_reply("git_echo", {"text": "x"}), text_reply("done"))
    # Untrusted project: only the global (updated) package loads.
    assert run_pi(["-p", "go", "--no-approve", "--model", MODEL], env).returncode == 0
    assert "v2: x" in system_and_user_texts(loopback.requests[1])

    removed = run_pi(["remove", source], env)
    assert removed.returncode == 0
    assert not clone.exists() and pinned.exists()


def test_project_installs_need_trust(env, tmp_path):
    make_package(tmp_path / "demo")
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi" / "prompts").mkdir(parents=True)  # a project resource: trust must be decided now
    denied = run_pi(["install", "-l", "../demo"], env)
    assert (denied.returncode, denied.stderr) == (1, "Project is not trusted. Use --approve to modify local package config.\n")
    assert not (project / ".pi" / "settings.json").exists()
    allowed = run_pi(["install", "-l", "../demo", "--approve"], env)
    assert allowed.returncode == 0, allowed.stderr
    assert settings(env, project=True)["packages"] == ["../../demo"]  # relative to .pi/
    assert run_pi(["list"], env).stdout == "No packages installed.\n"
    assert run_pi(["list", "-a"], env).stdout == f"Project packages:\n  ../../demo\n    {tmp_path / 'demo'}\n"


def build_wheel(version: str, out: Path) -> Path:
    """A real wheel of ``pi-demo-tools`` (the format pip installs), written with zipfile so the test
    needs no build backend: an extension module and a prompt folder, declared by ``pi`` entry points."""
    name = "pi_demo_tools"
    info = f"pi_demo_tools-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{name}/pi_extension.py": EXTENSION.replace("{label}", f"wheel {version}").replace("{tool}", "wheel_echo"),
        f"{name}/prompts/wheel.md": f"Wheel prompt {version}: $ARGUMENTS\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: pi-demo-tools\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[pi]\nextensions = {name}.pi_extension\nprompts = {name}.prompts\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"pi_demo_tools-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def test_pypi_package_from_a_local_wheel(loopback, env, tmp_path):
    wheels = tmp_path / "wheels"
    build_wheel("1.0.0", wheels)
    env = {**env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    result = run_pi(["install", "pypi:pi-demo-tools"], env, timeout=120)
    assert result.returncode == 0, result.stderr
    target = Path(env["PI_CODING_AGENT_DIR"], "pypi", "pi-demo-tools")
    assert (target / "pi_demo_tools" / "pi_extension.py").is_file()
    loopback.push(tool_reply("wheel_echo", {"text": "w"}), text_reply("ok"))
    result = run_pi(["-p", "/wheel now", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    assert "Wheel prompt 1.0.0: now" in system_and_user_texts(loopback.requests[0])
    assert "wheel 1.0.0: w" in system_and_user_texts(loopback.requests[1])

    build_wheel("1.1.0", wheels)
    assert run_pi(["install", "pypi:pi-demo-tools==1.0.0", "-l"], env, timeout=120).returncode == 0
    pinned = Path(env["PI_TEST_PROJECT"], ".pi", "pypi", "pi-demo-tools")
    update = run_pi(["update", "--extensions", "--approve"], env, timeout=120)
    assert update.returncode == 0, update.stderr
    assert update.stdout == "Updated 1 package:\n  pypi:pi-demo-tools 1.0.0 -> 1.1.0\n"  # the pinned one stays
    assert (pinned / "pi_demo_tools-1.0.0.dist-info").is_dir() and (target / "pi_demo_tools-1.1.0.dist-info").is_dir()
    assert run_pi(["update", "pypi:pi-demo-tools"], env, timeout=120).stdout == "pypi:pi-demo-tools is already up to date\n"
    removed = run_pi(["remove", "pypi:pi-demo-tools"], env)
    assert removed.returncode == 0 and not target.exists()


def test_update_without_a_package_target_cannot_update_pi(env):
    result = run_pi(["update"], env)
    assert result.returncode == 1
    assert result.stdout == "Extensions are skipped. Run pi update --extensions to update extensions.\n"
    assert result.stderr.splitlines()[0] == "error: pi cannot self-update this installation."
