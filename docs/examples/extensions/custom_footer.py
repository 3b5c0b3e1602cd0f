"""Custom footer: ``/footer`` swaps pi's footer for one line of tokens, cost, model and git branch,
and back (Pi's ``custom-footer.ts``, in Python).

A footer factory that takes three arguments gets Pi's ``footer_data`` (``get_git_branch()``,
``get_extension_statuses()``, ``on_branch_change(fn)``); the token figures come from the session
like any extension can read them. pi redraws the footer when the session changes. App only;
elsewhere ``set_footer`` does nothing.

    pi -e docs/examples/extensions/custom_footer.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI


def tokens(n: int) -> str:
    return f"{n}" if n < 1000 else f"{n / 1000:.1f}k"


def usage_line(ctx, branch: str | None, theme, width: int):
    """``↑in ↓out $cost`` on the left, ``model (branch)`` on the right, over ``width`` columns."""
    tokens_in = tokens_out = 0
    cost = 0.0
    for entry in ctx.session_manager.get_branch():
        if entry.type == "message" and entry.message.role == "assistant":
            tokens_in += entry.message.usage.input
            tokens_out += entry.message.usage.output
            cost += entry.message.usage.cost.total
    left = theme.fg("dim", f"↑{tokens(tokens_in)} ↓{tokens(tokens_out)} ${cost:.3f}")
    model = ctx.model.id if ctx.model is not None else "no-model"
    right = theme.fg("dim", model + (f" ({branch})" if branch else ""))
    line = left + " " * max(1, width - len(left) - len(right)) + right
    return line[:width] if width > 0 else line


def extension(pi: ExtensionAPI) -> None:
    enabled = {"on": False}

    def footer_factory(ctx):
        def factory(tui, theme, footer_data):
            from textual.widgets import Static

            class UsageFooter(Static):
                DEFAULT_CSS = "UsageFooter { height: 1; padding: 0 1; }"

                def on_mount(self) -> None:
                    self.stop_watching = footer_data.on_branch_change(self.refresh)

                def on_unmount(self) -> None:
                    self.stop_watching()

                def render(self):
                    return usage_line(ctx, footer_data.get_git_branch(), theme, self.content_region.width)

            return UsageFooter(id="usage-footer")

        return factory

    async def footer(args, ctx):
        enabled["on"] = not enabled["on"]
        if enabled["on"]:
            ctx.ui.set_footer(footer_factory(ctx))
            ctx.ui.notify("Custom footer enabled", "info")
        else:
            ctx.ui.set_footer(None)
            ctx.ui.notify("Default footer restored", "info")

    pi.register_command("footer", footer, description="Toggle custom footer")
