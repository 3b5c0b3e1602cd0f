"""The HTTP client's packages load without ``importlib.metadata`` and still know their versions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from pi_runtime.http._versions import dist_info_version, loading_without_metadata

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_client_loads_without_importlib_metadata_and_versions_match():
    shown = run_python(
        """
        import sys
        import pi_runtime.http._client
        import httpx2, httpcore2
        skipped = "importlib.metadata" not in sys.modules and not hasattr(sys.modules["importlib"], "metadata")
        from importlib.metadata import version
        print(skipped, httpx2.__version__ == version("httpx2"), httpcore2.__version__ == version("httpcore2"))
        """
    )
    assert shown == "True True True"


def test_a_thread_meeting_the_stand_in_gets_the_real_answers():
    # Anything but the listed packages' versions is answered by the real module, loaded on demand.
    shown = run_python(
        """
        import sys
        from pi_runtime.http._versions import loading_without_metadata
        with loading_without_metadata("httpx2"):
            import importlib.metadata as stand_in
            other = stand_in.version("h11")
            names = {d.metadata["Name"].lower() for d in stand_in.distributions()}
            real = sys.modules["importlib.metadata"]
        print(type(stand_in).__name__ != "module", other == real.version("h11"), "httpx2" in names,
              real is sys.modules["importlib.metadata"], real is sys.modules["importlib"].metadata)
        """
    )
    assert shown == "True True True True True"


def test_dist_info_version_reads_the_metadata(tmp_path, monkeypatch):
    info = tmp_path / "Some_Package-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: some-package\nVersion: 1.2.3rc1\n\nVersion: 9\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert dist_info_version("some-package") == "1.2.3rc1"
    assert dist_info_version("missing-package") is None


def test_nothing_is_done_when_the_module_is_loaded():
    import importlib.metadata

    with loading_without_metadata("httpx2"):
        assert sys.modules["importlib.metadata"] is importlib.metadata
    assert sys.modules["importlib.metadata"] is importlib.metadata
