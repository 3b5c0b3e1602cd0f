"""Question tool: the model asks, the user picks an option or types an answer (Pi's ``question.ts``,
in Python).

The dialog is the extension's own Textual widget, shown with ``ctx.ui.custom``: ↑↓ move, Enter
chooses, the last option opens a text field (Esc goes back to the options), Esc cancels. Outside
the app (print, JSON, RPC) the tool says the UI is not available.

    pi -e docs/examples/extensions/question.py
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from pi_runtime.extensions import ExtensionAPI

OTHER = "Type something."


class Option(BaseModel):
    label: str = Field(description="Display label for the option")
    description: str | None = Field(default=None, description="Optional description shown below label")


class QuestionParams(BaseModel):
    question: str = Field(description="The question to ask the user")
    options: list[Option] = Field(description="Options for the user to choose from")


def picker(question: str, options: list[Option], theme, done):
    """The dialog widget; Textual is imported here, so the module loads in headless modes too."""
    from rich.text import Text
    from textual.containers import Vertical
    from textual.widgets import Input, Static

    labels = [option.label for option in options] + [OTHER]

    class Picker(Vertical, can_focus=True):
        DEFAULT_CSS = """
        Picker { height: auto; }
        Picker > Input { display: none; }
        Picker.-writing > Input { display: block; }
        """

        def __init__(self) -> None:
            super().__init__(id="question-picker")
            self.index = 0
            self.body = Static()
            self.answer = Input(placeholder="Your answer")

        def compose(self):
            yield self.body
            yield self.answer

        def on_mount(self) -> None:
            self.redraw()

        @property
        def writing(self) -> bool:
            return self.has_class("-writing")

        def redraw(self) -> None:
            text = Text()
            text += " " + theme.fg("text", question) + "\n\n"
            for i, label in enumerate(labels):
                selected = i == self.index
                mark = " ✎" if label == OTHER and self.writing else ""
                text += (theme.fg("accent", "> ") if selected else "  ") + theme.fg(
                    "accent" if selected else "text", f"{i + 1}. {label}{mark}") + "\n"
                if i < len(options) and options[i].description:
                    text += "     " + theme.fg("muted", options[i].description) + "\n"
            hint = "Enter to submit • Esc to go back" if self.writing else "↑↓ navigate • Enter to select • Esc to cancel"
            self.body.update(text + "\n " + theme.fg("dim", hint))

        def back_to_options(self) -> None:
            self.remove_class("-writing")
            self.answer.value = ""
            self.focus()
            self.redraw()

        def on_key(self, event) -> None:
            if self.writing:
                if event.key == "escape":  # back to the options, not out of the dialog
                    event.stop()
                    event.prevent_default()
                    self.back_to_options()
                return
            if event.key in ("up", "down"):
                self.index = max(0, min(len(labels) - 1, self.index + (1 if event.key == "down" else -1)))
                self.redraw()
            elif event.key == "enter" and labels[self.index] == OTHER:
                self.add_class("-writing")
                self.answer.focus()
                self.redraw()
            elif event.key == "enter":
                done({"answer": labels[self.index], "custom": False, "index": self.index + 1})
            elif event.key == "escape":
                done(None)
            else:
                return
            event.stop()
            event.prevent_default()

        def on_input_submitted(self, event) -> None:
            event.stop()
            if event.value.strip():
                done({"answer": event.value.strip(), "custom": True})
            else:
                self.back_to_options()

    return Picker()


def extension(pi: ExtensionAPI) -> None:
    async def execute(call_id, params, signal, on_update, ctx):
        labels = [option.label for option in params.options]
        details = {"question": params.question, "options": labels, "answer": None}
        if ctx.mode != "tui":
            return {"content": "Error: UI not available (running in non-interactive mode)", "details": details}
        if not params.options:
            return {"content": "Error: No options provided", "details": details}
        result = await ctx.ui.custom(lambda tui, theme, keys, done: picker(params.question, params.options, theme, done))
        if not result:
            return {"content": "User cancelled the selection", "details": details}
        details.update(answer=result["answer"], wasCustom=result["custom"])
        if result["custom"]:
            return {"content": f"User wrote: {result['answer']}", "details": details}
        return {"content": f"User selected: {result['index']}. {result['answer']}", "details": details}

    def render_call(args, theme, context):
        text = theme.fg("toolTitle", theme.bold("question ")) + theme.fg("muted", str(args.get("question", "")))
        options = args.get("options") if isinstance(args.get("options"), list) else []
        if options:
            labels = [str(option.get("label", "")) for option in options] + [OTHER]
            text += "\n" + theme.fg("dim", "  Options: " + ", ".join(f"{i + 1}. {o}" for i, o in enumerate(labels)))
        return text

    def render_result(result, options, theme, context):
        details = result.details
        if not details:
            return result.content[0].text if result.content else ""
        answer = details.get("answer")
        if answer is None:
            return theme.fg("warning", "Cancelled")
        if details.get("wasCustom"):
            return theme.fg("success", "✓ ") + theme.fg("muted", "(wrote) ") + theme.fg("accent", answer)
        number = details["options"].index(answer) + 1 if answer in details["options"] else 0
        return theme.fg("success", "✓ ") + theme.fg("accent", f"{number}. {answer}" if number else answer)

    pi.register_tool(
        name="question", label="Question", params=QuestionParams, execute=execute, execution_mode="sequential",
        render_call=render_call, render_result=render_result,
        description="Ask the user a question and let them pick from options. Use when you need user input to proceed.")
