"""``pi install`` of git and local packages that declare Python dependencies: pip installs them
into a folder of the package's own (``<agent dir>/deps/<name>-<hash>``), never into pi's
environment; the package's extensions import them from there; a failure registers nothing.

Each test still gives pi an environment of its own (a fresh virtual environment that sees the test
environment's packages, pi and pip, through a ``.pth`` file), so a regression that wrote into pi's
environment would show there, not in the test environment. The dependencies are wheels written here
with zipfile, installed with ``PIP_NO_INDEX`` (no network)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest
from test_packages import git

EXTENSION = """
    import pi_tinydep

    def extension(pi):
        pi.register_flag("tiny", description=pi_tinydep.GREETING)
"""


def tiny_wheel(out: Path, greeting: str, extra: dict[str, str] | None = None) -> Path:
    """A wheel of ``pi-tinydep`` (module ``pi_tinydep`` with ``GREETING``, and ``extra`` files), in
    the format pip installs."""
    info = "pi_tinydep-1.0.dist-info"
    files = {
        "pi_tinydep/__init__.py": f"GREETING = {greeting!r}\n",
        **(extra or {}),
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: pi-tinydep\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / "pi_tinydep-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


class OwnPython:
    """A virtual environment for pi to install into; ``pi(...)`` runs pi on its Python."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
        self.python = str(folder / "bin" / "python")
        purelib = subprocess.run([self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        # addsitedir also reads the test environment's own .pth files (pi's editable install).
        Path(purelib, "test_env.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
        self.env = {**env, "PIP_NO_INDEX": "1"}
        self.purelib = Path(purelib)

    def pi(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.python, "-m", "pi_runtime.cli", *args], env=self.env, capture_output=True,
                              text=True, cwd=self.env["PI_TEST_PROJECT"], timeout=180)

    def imports(self, module: str) -> bool:
        """Whether pi's Python imports ``module`` by itself (from its environment)."""
        return subprocess.run([self.python, "-c", f"import {module}"], env=self.env, capture_output=True).returncode == 0

    def environment_has(self, name: str) -> list[Path]:
        """Files called ``name`` in pi's environment, the test environment's site-packages and pi's
        own source folder (an editable install)."""
        import pi_runtime

        roots = [self.purelib, Path(sysconfig.get_paths()["purelib"]), Path(pi_runtime.__file__).parent]
        return [p for root in roots for p in root.rglob(name)]


def deps_folders(env: dict[str, str]) -> list[Path]:
    return sorted(Path(env["PI_CODING_AGENT_DIR"], "deps").glob("*"))


@pytest.fixture
def own_python(tmp_path: Path, env: dict[str, str]) -> OwnPython:
    return OwnPython(tmp_path / "venv", env)


def package(root: Path, pyproject_dependencies: list[str] | None = None, requirements: str | None = None) -> Path:
    root.mkdir(parents=True)
    (root / "ext.py").write_text(textwrap.dedent(EXTENSION))
    deps = "" if pyproject_dependencies is None else f"dependencies = {json.dumps(pyproject_dependencies)}\n"
    (root / "pyproject.toml").write_text(f'[project]\nname = "tiny-ext"\n{deps}[tool.pi]\nextensions = ["ext.py"]\n')
    if requirements is not None:
        (root / "requirements.txt").write_text(requirements)
    return root


def packages_in_settings(env: dict[str, str]) -> list[str]:
    return json.loads(Path(env["PI_CODING_AGENT_DIR"], "settings.json").read_text()).get("packages", [])


def test_local_package_dependencies_go_to_a_folder_of_its_own_and_its_extension_imports_them(own_python, env,
                                                                                               tmp_path):
    wheel = tiny_wheel(tmp_path / "wheels", "hello from a dependency")
    root = package(tmp_path / "tiny", [f"pi-tinydep @ {wheel.as_uri()}"])
    done = own_python.pi("install", str(root))
    assert done.returncode == 0, done.stderr
    [deps] = deps_folders(env)
    assert deps.name.startswith("tiny-")
    assert done.stdout.splitlines() == [
        f"Installing {root}...", f"Installing dependencies: pi-tinydep @ {wheel.as_uri()}",
        f"  into {deps} (apart from pi's own modules); pip runs the build code (setup.py, a build backend) "
        "of any that come as source",
        f"Installed {root}"]
    assert (deps / "pi_tinydep" / "__init__.py").is_file() and packages_in_settings(env) == ["../tiny"]
    assert not own_python.imports("pi_tinydep")  # not in pi's environment
    # The package's extension imports its dependency: its flag's description comes from it.
    helped = own_python.pi("--help")
    assert "hello from a dependency" in helped.stdout, helped.stderr
    # pi remove takes its dependencies with it.
    assert own_python.pi("remove", str(root)).returncode == 0 and not deps.exists()


def test_a_dependency_cannot_put_a_module_into_pis_installation(own_python, env, tmp_path):
    marker = "zz_evil_marker.py"
    wheel = tiny_wheel(tmp_path / "wheels", "harmless", extra={f"pi_runtime/{marker}": "EVIL = True\n"})
    root = package(tmp_path / "tiny", [f"pi-tinydep @ {wheel.as_uri()}"])
    done = own_python.pi("install", str(root))
    assert done.returncode == 0, done.stderr
    assert own_python.environment_has(marker) == []
    # Its copy is in the package's folder, behind pi's own pi_runtime: not importable as pi's.
    [deps] = deps_folders(env)
    assert (deps / "pi_runtime" / marker).is_file()
    helped = own_python.pi("--help")
    assert "harmless" in helped.stdout, helped.stderr
    probe = textwrap.dedent("""
        import sys
        from pi_runtime.packages.resolve import resolve_packages
        from pi_runtime.settings import SettingsManager
        resolve_packages(SettingsManager.create(), ".", project_trusted=False)
        assert sys.path[-1].endswith(sys.argv[1]), sys.path
        try:
            import pi_runtime.zz_evil_marker
        except ImportError:
            print("refused")
    """)
    run = subprocess.run([own_python.python, "-c", probe, deps.name], env=own_python.env, capture_output=True,
                         text=True, cwd=own_python.env["PI_TEST_PROJECT"])
    assert run.stdout == "refused\n", run.stderr


def test_git_package_requirements_txt_with_a_path_relative_to_the_package(own_python, env, tmp_path):
    repo = package(tmp_path / "repo", requirements="./wheels/pi_tinydep-1.0-py3-none-any.whl\n")
    tiny_wheel(repo / "wheels", "from requirements.txt")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    done = own_python.pi("install", f"git:file://{repo}")
    assert done.returncode == 0, done.stderr
    assert "Installing dependencies: requirements.txt" in done.stdout
    assert "from requirements.txt" in own_python.pi("--help").stdout


def test_a_dependency_that_fails_registers_nothing_and_leaves_no_clone(own_python, env, tmp_path):
    missing = (tmp_path / "nowhere" / "pi_tinydep-1.0-py3-none-any.whl").as_uri()
    root = package(tmp_path / "broken", [f"pi-tinydep @ {missing}"])
    local = own_python.pi("install", str(root))
    assert local.returncode == 1
    [message] = [line for line in local.stderr.splitlines() if line.strip()]
    assert message.startswith(f"Error: Installing dependencies (pi-tinydep @ {missing}) failed: "), local.stderr
    assert "Traceback" not in local.stderr and packages_in_settings(env) == []

    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "v1")
    cloned = own_python.pi("install", f"git:file://{root}")
    assert cloned.returncode == 1 and "Installing dependencies" in cloned.stderr
    assert packages_in_settings(env) == []
    git_root = Path(env["PI_CODING_AGENT_DIR"], "git", "file")
    assert not any(p.name == "broken" or p.name.startswith(".broken.") for p in git_root.rglob("*"))


def test_an_update_whose_new_dependencies_fail_keeps_the_old_commit(own_python, env, tmp_path):
    repo = package(tmp_path / "repo", requirements="./wheels/pi_tinydep-1.0-py3-none-any.whl\n")
    tiny_wheel(repo / "wheels", "first")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    assert own_python.pi("install", f"git:file://{repo}").returncode == 0
    clone = Path(env["PI_CODING_AGENT_DIR"], "git", "file", str(repo).lstrip("/"))
    first = git(clone, "rev-parse", "HEAD")
    (repo / "requirements.txt").write_text("./wheels/missing-1.0-py3-none-any.whl\n")
    git(repo, "commit", "-qam", "v2 needs a wheel that is not there")
    updated = own_python.pi("update", "--extensions")
    assert updated.returncode == 1
    assert "Installing dependencies (requirements.txt) failed" in updated.stdout, updated.stdout + updated.stderr
    assert git(clone, "rev-parse", "HEAD") == first


def test_installing_again_gives_an_existing_clone_its_dependencies(own_python, env, tmp_path):
    repo = package(tmp_path / "repo", requirements="./wheels/pi_tinydep-1.0-py3-none-any.whl\n")
    tiny_wheel(repo / "wheels", "late")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    # A clone already in place, as an install by a pi that did not handle dependencies left it.
    clone = Path(env["PI_CODING_AGENT_DIR"], "git", "file", str(repo).lstrip("/"))
    clone.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    assert deps_folders(env) == []
    done = own_python.pi("install", f"git:file://{repo}")
    assert done.returncode == 0 and "Installing dependencies: requirements.txt" in done.stdout, done.stderr
    [deps] = deps_folders(env)
    assert (deps / "pi_tinydep").is_dir() and "late" in own_python.pi("--help").stdout


def test_a_configured_git_package_missing_at_start_up_is_cloned_with_its_dependencies(own_python, env, tmp_path):
    repo = package(tmp_path / "repo", requirements="./wheels/pi_tinydep-1.0-py3-none-any.whl\n")
    tiny_wheel(repo / "wheels", "cloned at start-up")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "v1")
    settings_file = Path(env["PI_CODING_AGENT_DIR"], "settings.json")  # as if copied from another machine
    settings_file.write_text(json.dumps({**json.loads(settings_file.read_text()), "packages": [f"git:file://{repo}"]}))
    helped = own_python.pi("--help")
    assert "cloned at start-up" in helped.stdout, helped.stderr
    assert len(deps_folders(env)) == 1 and not own_python.imports("pi_tinydep")
