"""The export's answers as a reader sees them: GFM tables become tables, and an ordered list
that a code block interrupts keeps counting. The page renders markdown in the browser, so the
page's own script is run (in Node) on the answer the page embeds."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.kernel.export_html import decode_session_data

from .test_export_html import Scripts

NODE = shutil.which("node")
ANSWER = """Steps:

1. Read the files
2. Change the code

```python
print("hello")
```

3. Run the tests

| Key | Action | Cost |
|:----|:------:|-----:|
| Esc | abort \\| stop | 0 |
| Enter | `send` | 1 |

- loose one

- loose two
"""


def render_in_page_script(page: str, source: str) -> str:
    """What the exported page's own markdown function makes of ``source``."""
    from importlib import resources

    text_js = resources.files("pi_runtime.kernel.export_html").joinpath("text.js").read_text(encoding="utf-8")
    parser = Scripts()
    parser.feed(page)
    assert any(text_js.strip() in text for _, text in parser.found)  # the page carries this very script
    program = ("globalThis.window = {};\n" + text_js +
               "\nprocess.stdout.write(window.piExport.text.markdown(" + json.dumps(source) + "));\n")
    done = subprocess.run([NODE, "-"], input=program, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_tables_and_ordered_lists_in_the_exported_page(make_session, tmp_path):
    session = make_session()
    session.provider.push(scripted_text(ANSWER))
    await session.prompt("explain")
    page = Path(session.export_html(str(tmp_path / "export.html"))).read_text(encoding="utf-8")
    data = decode_session_data(page)
    [answer] = [e["message"]["content"][0]["text"] for e in data["entries"]
                if e["type"] == "message" and e["message"]["role"] == "assistant"]
    html = render_in_page_script(page, answer)
    assert '<table class="md-table">' in html and "|---" not in html and "| Esc |" not in html
    assert '<th style="text-align:left">Key</th>' in html
    assert '<th style="text-align:center">Action</th>' in html and '<th style="text-align:right">Cost</th>' in html
    assert "<td style=\"text-align:center\">abort | stop</td>" in html  # an escaped pipe stays in its cell
    assert "<code>send</code>" in html
    assert "<ol><li>Read the files</li><li>Change the code</li></ol>" in html
    assert '<ol start="3"><li>Run the tests</li></ol>' in html  # not restarted at 1
    assert "<ul><li>loose one</li><li>loose two</li></ul>" in html  # a blank line does not split a list
