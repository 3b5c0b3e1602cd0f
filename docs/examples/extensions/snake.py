"""Snake: ``/snake`` plays snake (Pi's ``snake.ts``, in Python).

The game is the extension's own Textual widget in ``ctx.ui.custom``, moved by a timer. Esc pauses
and saves the game in the session (``pi.append_entry("snake-save", state)``, the same JSON as
Pi's), so the next ``/snake`` resumes it, paused; Q quits and clears the save; R or Space
restarts after a game over. App only.

    pi -e docs/examples/extensions/snake.py
"""
from __future__ import annotations

import random

from pi_runtime.extensions import ExtensionAPI

WIDTH, HEIGHT, TICK = 40, 15, 0.1
SAVE_TYPE = "snake-save"
MOVES = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
KEYS = {"up": "up", "w": "up", "down": "down", "s": "down", "left": "left", "a": "left", "right": "right", "d": "right"}


def spawn_food(snake):
    while True:
        food = {"x": random.randrange(WIDTH), "y": random.randrange(HEIGHT)}
        if food not in snake:
            return food


def initial_state():
    x, y = WIDTH // 2, HEIGHT // 2
    return {"snake": [{"x": x, "y": y}, {"x": x - 1, "y": y}, {"x": x - 2, "y": y}], "food": spawn_food([{"x": x, "y": y}]),
            "direction": "right", "nextDirection": "right", "score": 0, "gameOver": False, "highScore": 0}


def tick(state):
    state["direction"] = state["nextDirection"]
    dx, dy = MOVES[state["direction"]]
    head = {"x": state["snake"][0]["x"] + dx, "y": state["snake"][0]["y"] + dy}
    if not (0 <= head["x"] < WIDTH and 0 <= head["y"] < HEIGHT) or head in state["snake"]:
        state["gameOver"] = True
        return
    state["snake"].insert(0, head)
    if head == state["food"]:
        state["score"] += 10
        state["highScore"] = max(state["highScore"], state["score"])
        state["food"] = spawn_food(state["snake"])
    else:
        state["snake"].pop()


def snake_widget(saved, save, close):
    from rich.text import Text  # app only: imported here, so the module loads in every mode
    from textual.widget import Widget

    class Snake(Widget, can_focus=True):
        DEFAULT_CSS = "Snake { height: auto; }"

        def __init__(self):
            super().__init__()
            self.timer = None
            if saved and not saved.get("gameOver"):
                self.state, self.paused = saved, True
            else:
                self.state, self.paused = initial_state(), False
                if saved:
                    self.state["highScore"] = saved.get("highScore", 0)

        def on_mount(self):
            if not self.paused:
                self.start()

        def start(self):
            self.timer = self.set_interval(TICK, self.step)

        def step(self):
            if not self.state["gameOver"]:
                tick(self.state)
                self.refresh()

        def stop(self):
            if self.timer is not None:
                self.timer.stop()
                self.timer = None

        def on_key(self, event):
            # Every key is the game's, Esc included (stopped here, it does not close the screen).
            event.stop()
            event.prevent_default()
            key = event.key
            if self.paused:
                if key in ("escape", "q", "Q"):
                    self.stop()
                    close()
                else:
                    self.paused = False
                    self.start()
                    self.refresh()
                return
            if key == "escape":
                self.stop()
                save(self.state)
                close()
                return
            if key in ("q", "Q"):
                self.stop()
                save(None)
                close()
                return
            direction = KEYS.get(key.lower()) if len(key) == 1 else KEYS.get(key)
            if direction and self.state["direction"] != OPPOSITE[direction]:
                self.state["nextDirection"] = direction
            if self.state["gameOver"] and key in ("r", "R", "space"):
                high = self.state["highScore"]
                self.state = initial_state()
                self.state["highScore"] = high
                save(None)
                self.refresh()

        def render(self):
            width = min(WIDTH, (self.size.width - 4) // 2) if self.size.width else WIDTH
            box = width * 2
            s = self.state
            out = Text()

            def line(content):
                out.append(" │", style="dim")
                out.append_text(content)
                out.append(" " * max(0, box - content.cell_len))
                out.append("│\n", style="dim")

            out.append(f" ╭{'─' * box}╮\n", style="dim")
            line(Text.assemble(("SNAKE", "bold green"), " │ Score: ", (str(s["score"]), "bold yellow"),
                               " │ High: ", (str(s["highScore"]), "bold yellow")))
            out.append(f" ├{'─' * box}┤\n", style="dim")
            body = s["snake"][1:]
            for y in range(HEIGHT):
                row = Text()
                for x in range(width):
                    point = {"x": x, "y": y}
                    if point == s["snake"][0]:
                        row.append("██", style="green")
                    elif point in body:
                        row.append("▓▓", style="green")
                    elif point == s["food"]:
                        row.append("◆ ", style="red")
                    else:
                        row.append("  ")
                line(row)
            out.append(f" ├{'─' * box}┤\n", style="dim")
            if self.paused:
                footer = Text.assemble(("PAUSED", "bold yellow"), " Press any key to continue, ", ("Q", "bold"), " to quit")
            elif s["gameOver"]:
                footer = Text.assemble(("GAME OVER!", "bold red"), " Press ", ("R", "bold"), " to restart, ",
                                       ("Q", "bold"), " to quit")
            else:
                footer = Text.assemble("↑↓←→ or WASD to move, ", ("ESC", "bold"), " pause, ", ("Q", "bold"), " quit")
            line(footer)
            out.append(f" ╰{'─' * box}╯", style="dim")
            return out

    return Snake()


def extension(pi: ExtensionAPI) -> None:
    async def snake(args, ctx):
        if ctx.mode != "tui":
            ctx.ui.notify("Snake requires interactive mode", "error")
            return
        saved = next((e.data for e in reversed(ctx.session_manager.get_entries())
                      if e.type == "custom" and e.custom_type == SAVE_TYPE), None)
        await ctx.ui.custom(lambda tui, theme, keys, done: snake_widget(
            saved, lambda state: pi.append_entry(SAVE_TYPE, state), lambda: done(None)))

    pi.register_command("snake", snake, description="Play Snake!")
