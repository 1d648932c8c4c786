"""The VS Code extension, without VS Code: its TextMate grammar tokenizes a sample with the
scopes we promise (vscode-textmate + vscode-oniguruma, VS Code's own engine), its
activation starts `racesc lsp`, and `vsce package` builds a .vsix offline.

Needs Node.js and npm; `npm ci` runs here when editors/vscode/node_modules is missing
(CI may run it beforehand)."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.lsp.conftest import REPO

EXT = REPO / "editors" / "vscode"
NODE, NPM, NPX = shutil.which("node"), shutil.which("npm"), shutil.which("npx")

pytestmark = pytest.mark.skipif(not (NODE and NPM and NPX),
                                reason="Node.js/npm are not installed: the VS Code extension cannot be built or tested")


@pytest.fixture(scope="module")
def node_modules() -> Path:
    lock = Path(tempfile.gettempdir()) / "racesl-vscode-npm.lock"
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # pytest-xdist workers share the folder
        nm = EXT / "node_modules"
        if not (nm / "vscode-textmate").exists() or not (nm / "@vscode" / "vsce").exists():
            proc = subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=EXT, capture_output=True, text=True,
                                  timeout=600)
            assert proc.returncode == 0, f"npm ci failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return EXT / "node_modules"


def _node(script: str, *args: str) -> dict:
    proc = subprocess.run([NODE, str(EXT / "test" / script), *args], cwd=EXT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_grammar_scopes(node_modules):
    out = _node("grammar.test.js")
    assert out["failures"] == [] and out["checked"] >= 30


def test_grammar_on_the_stdlib(node_modules, tmp_path):
    """Every stdlib file tokenizes without the grammar getting stuck (the sample's checks are
    line-specific, so here we only require that tokenizing finishes and finds tokens)."""
    from racesl import resources

    for f in sorted(resources.stdlib_dir().glob("*.races")):
        proc = subprocess.run([NODE, str(EXT / "test" / "grammar.test.js"), str(f)], cwd=EXT,
                              capture_output=True, text=True, timeout=120)
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["tokens"] > 100, f


def test_extension_activation(node_modules):
    out = _node("extension.test.js")
    assert out == {"ok": True, "started": 2}


def test_package_vsix(node_modules, tmp_path):
    vsix = tmp_path / "racesl.vsix"
    proc = subprocess.run([NPX, "--no-install", "vsce", "package", "--allow-missing-repository", "--out", str(vsix)],
                          cwd=EXT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    names = set(zipfile.ZipFile(vsix).namelist())
    for f in ("extension/package.json", "extension/src/extension.js", "extension/syntaxes/races.tmLanguage.json",
              "extension/language-configuration.json", "extension/readme.md",
              "extension/node_modules/vscode-languageclient/package.json"):
        assert f in names, f
    assert not any(n.startswith("extension/node_modules/@vscode/vsce/") for n in names)  # dev dependency
    assert not any(n.startswith("extension/test/") for n in names)
    manifest = json.loads(zipfile.ZipFile(vsix).read("extension/package.json"))
    assert manifest["contributes"]["languages"][0]["extensions"] == [".races"]
    assert manifest["contributes"]["configuration"]["properties"]["racesl.serverPath"]["default"] == "racesc"
    # the server's formatter (racesc fmt's layout) is the default one for .races files
    formatter = manifest["contributes"]["configurationDefaults"]["[races]"]["editor.defaultFormatter"]
    assert formatter == f"{manifest['publisher']}.{manifest['name']}"
