"""The output policy: what a command may write over, decided in one place, before any work.

Every command that writes (compile in every format and its sidecar, graph, doc, score,
eval, fmt, admit, evolve, the pool) asks `target(path)` first and writes through
`racesl.atomic.atomic_write`, which asks it again. At the path:

- nothing: the file is created (its missing folders too), with the mode `open()` gives;
- a regular file: replaced atomically, keeping its mode (and, for root, its owner);
- a read-only file (no write bit, checked as bits because root passes every permission
  check; or not writable by this user): refused;
- a symlink: written through to the file it names (atomically there), the link kept;
  a link loop, or a link to anything but a file, is refused like that thing;
- a folder, FIFO, character or block device, or socket: refused (`-o /dev/null` would
  otherwise become a regular file, and a folder would fail after the whole compile).

`-` (standard output) is never a path here: the commands that support it test `is_stdout`
before asking. Outputs that are folders: `folder(path)` (eval's `-o DIR`: absent or a
folder) and `dataset_folder(path)` (compile `--format hf`: absent, or a dataset folder that
racesl saved, which is replaced atomically as a whole; any other folder is refused).
`work_folder(path)` (train's `--output-dir`, which the trainer fills with files of its own
naming: weights, `config.json`, tokenizer files, checkpoints): absent or a folder that is not,
does not lie inside and does not hold anything the command reads (the model folder it starts
from, above all: saving there would replace the weights it read).
A refusal is an `OutputRefused`: one line, which the CLI prints with exit 2.

No command writes over its own input. A command names what it reads once, first thing
(`refusal(*outputs, inputs=[...])`, or `reading(...)`); from then on every output it writes —
the ones it checks up front and every later `target`, `dataset_folder` or `atomic_write` (a sidecar,
eval's files, the pool's) — is refused when it would replace one (`_clash`):

- a file the command reads: the same path, a symlink to it, `..` or `./` spellings (compared
  after `realpath`), or a hard link to it (the same `(st_dev, st_ino)`);
- inside a folder it reads (`compile stdlib/`, `-I DIR`): any `*.races` file there, existing or
  not — the loader reads every `*.races` under it (racesl.check.loader), so a new one would be
  read by the next run of the same command line;
- beside a `.races` file it reads: an existing `*.races` file there (imports are looked up in
  the importing file's folder first);
- a dataset folder (`--format hf`, replaced as a whole) that is, or holds, something it reads
  (the files eval writes into its `-o DIR` are each checked as files).

A sidecar (`OUT.library.json`) goes beside the file the output lands in, a link followed
(`sidecar_of`): where a reader of that file looks.

`fmt` and `doc --add-examples` rewrite their sources by design: `fmt` names no inputs, and
`doc` writes its examples inside `rewriting()`. The CLI forgets the inputs when a command
ends (`command_inputs`), so one command's inputs never bind the next in the same process.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

import attrs

__all__ = ["Inputs", "OutputRefused", "command_inputs", "dataset_folder", "folder", "is_stdout", "keep_mode",
           "kind", "reading", "refusal", "rewriting", "sidecar_of", "sidecar_places", "sidecars", "target",
           "work_folder"]

STDOUT = "-"
DATASET_MARKERS = ("dataset_info.json", "state.json")  # what datasets' save_to_disk writes
DATASET_SIDECAR = "library.json"  # what racesl writes beside them (racesl.integrations.hf.SIDECAR)
MODULE_SUFFIX = ".races"  # what a command reads from a folder it is given, or beside a module it is given


class OutputRefused(ValueError):
    """A path no command may write to; the message is one line that names it."""


def is_stdout(path) -> bool:
    return isinstance(path, str) and path == STDOUT


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind(mode: int) -> str | None:
    """What a file of this st_mode is, when it is not a regular file (None for one)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _text(path) -> str:
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise OutputRefused(f"{text!r}: a path cannot hold a NUL character")
    if not text:
        raise OutputRefused("an empty path names no file")
    return text


def _real(text: str) -> Path:
    """The path a write lands at: symlinks followed (a dangling link: where it points)."""
    try:
        return Path(os.path.realpath(text, strict=True))
    except FileNotFoundError:
        return Path(os.path.realpath(text))
    except OSError as e:  # a link loop, a name too long, a file used as a folder
        raise OutputRefused(f"{text}: cannot write there: {e.strerror or e}") from None


def _check_parent(shown: str, real: Path) -> None:
    """The nearest existing folder above `real` must be a folder this process can write in."""
    for up in real.parents:
        try:
            st = os.stat(up)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise OutputRefused(f"{shown}: cannot write there: {e.strerror or e}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise OutputRefused(f"{shown}: {up} is {kind(st.st_mode) or 'a file'}, not a folder")
        if not os.access(up, os.W_OK | os.X_OK):
            raise OutputRefused(f"{shown}: the folder {up} is not writable")
        return


def _standing(shown: str, real: Path):
    """`os.stat` of what stands at `real`, or None where nothing does yet (then the folders
    above it must be able to hold it)."""
    try:
        return os.stat(real)
    except FileNotFoundError:
        _check_parent(shown, real)
        return None
    except OSError as e:
        raise OutputRefused(f"{shown}: cannot write there: {e.strerror or e}") from None


def _inode(real: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(real)
    except OSError:
        return None
    return st.st_dev, st.st_ino


@attrs.frozen
class Inputs:
    """What one command reads, as `_clash` compares outputs with it: files (the real path and,
    for one that exists, its `(st_dev, st_ino)`), folders whose `*.races` files it reads (every
    one under it), and the folders beside a `.races` file it reads (where its imports are
    looked up). Each entry keeps the path as the user gave it, for the message."""

    files: tuple[tuple[str, Path, tuple[int, int] | None], ...] = ()
    folders: tuple[tuple[str, Path], ...] = ()
    beside: tuple[tuple[str, Path], ...] = ()

    @classmethod
    def of(cls, *paths) -> Inputs:
        """The inputs named by `paths` (None and `-`, standard input, are skipped; a path
        that does not exist yet is kept by name: the command will say it is missing)."""
        files, folders, beside = [], [], []
        for p in paths:
            if p is None or is_stdout(p):
                continue
            try:
                shown = _text(p)
                real = _real(shown)
            except OutputRefused:
                continue  # (the command's own reader says what is wrong with it)
            if real.is_dir():
                folders.append((shown, real))
                continue
            files.append((shown, real, _inode(real)))
            if real.name.endswith(MODULE_SUFFIX):
                beside.append((shown, real.parent))
        return cls(tuple(files), tuple(folders), tuple(beside))

    def clash(self, real: Path, st) -> str | None:
        """Why writing the file `real` (`st`: what stands there now, or None) would replace one
        of these inputs, or None."""
        for shown, f, _ in self.files:
            if real == f:
                return f"it is this command's input {shown}, which writing it would destroy"
        if st is not None:
            ino = (st.st_dev, st.st_ino)
            for shown, _, i in self.files:
                if i == ino:
                    return (f"it is the same file as this command's input {shown} (a hard link), which writing "
                            "it would destroy")
        if real.name.endswith(MODULE_SUFFIX):
            for shown, d in self.folders:
                if d in real.parents:
                    return (f"it lies in {shown}, whose {MODULE_SUFFIX} files this command reads: it would "
                            "become an input")
            if st is not None:
                for shown, d in self.beside:
                    if real.parent == d:
                        return f"it is a module beside this command's input {shown}, which an import may read"
        if st is not None and st.st_nlink > 1:  # a hard link to a module inside a folder read
            ino = (st.st_dev, st.st_ino)
            for shown, d in self.folders:
                if any(_inode(m) == ino for m in d.rglob(f"*{MODULE_SUFFIX}")):
                    return (f"it is the same file as a {MODULE_SUFFIX} file in this command's input {shown} "
                            "(a hard link), which writing it would destroy")
        return None

    def held_by(self, real: Path) -> str | None:
        """The input that the folder `real` (an output folder replaced as a whole) is or holds."""
        for shown, f in [(s, f) for s, f, _ in self.files] + list(self.folders):
            if f == real or real in f.parents:
                return shown
        return None


_INPUTS: Inputs | None = None  # the running command's (`reading`); None: no command named them
_REWRITING = False  # inside `rewriting()`: writes may replace the inputs (by design)


def reading(*paths) -> Inputs:
    """Name what the running command reads (replacing what an earlier call named): from now
    on no output may replace it (see the module docstring). Returns the Inputs."""
    global _INPUTS
    _INPUTS = Inputs.of(*paths)
    return _INPUTS


@contextlib.contextmanager
def command_inputs():
    """One command's run (racesl.cli.main): the inputs it names are forgotten when it ends,
    so a later command in the same process starts with none."""
    global _INPUTS
    saved, _INPUTS = _INPUTS, None
    try:
        yield
    finally:
        _INPUTS = saved


@contextlib.contextmanager
def rewriting():
    """Inside: the writes may replace the command's inputs. Only for the commands that rewrite
    their sources by design (`doc --add-examples` filling in examples)."""
    global _REWRITING
    saved, _REWRITING = _REWRITING, True
    try:
        yield
    finally:
        _REWRITING = saved


def _clash(shown: str, real: Path, st) -> None:
    """OutputRefused when writing `real` would replace an input of the running command."""
    if _INPUTS is None or _REWRITING:
        return
    why = _INPUTS.clash(real, st)
    if why:
        raise OutputRefused(f"{shown}: {why}; give another path (nothing was written)")


def _clash_folder(shown: str, real: Path) -> None:
    """OutputRefused when the output folder `real` is, or holds, an input of the running command."""
    if _INPUTS is None or _REWRITING:
        return
    held = _INPUTS.held_by(real)
    if held is not None:
        raise OutputRefused(f"{shown}: this output folder holds this command's input {held}: give another "
                            "folder (nothing was written)")


def target(path, *, inside: Path | str | None = None) -> Path:
    """The file a write to `path` lands in (symlinks followed), after the checks of the module
    docstring; OutputRefused otherwise. `inside`: the file must also lie in this folder (a
    pool's files: a link out of it is refused)."""
    shown = _text(path)
    real = _real(shown)
    if inside is not None:
        root = Path(os.path.realpath(inside))
        if real != root and root not in real.parents:
            raise OutputRefused(f"{shown} leads out of {inside} (to {real}): refused")
    st = _standing(shown, real)
    _clash(shown, real, st)
    if st is None:
        return real
    what = kind(st.st_mode)
    if what is not None:
        via = f" ({real})" if str(real) != os.path.abspath(shown) else ""
        raise OutputRefused(f"{shown}{via} is {what}, not a file: give a file path (nothing was written)")
    if not st.st_mode & 0o222 or not os.access(real, os.W_OK):
        raise OutputRefused(f"{shown} is read-only: make it writable, or give another path (nothing was written)")
    _check_parent(shown, real)
    return real


def sidecar_of(path, suffix: str) -> Path:
    """Where the sidecar `suffix` of the output `path` goes (`OUT.library.json`): beside the
    file the output's writes land in, a symlink followed — where a reader of that file looks
    (a sidecar beside the link would be lost to anyone who opens the real file)."""
    return Path(str(_real(_text(path))) + suffix)


def sidecar_places(path, suffix: str = ".library.json") -> list[str]:
    """Where the sidecar of a task file may be, in the order every reader looks: beside the
    file a link names (where `sidecar_of` puts it), then beside the link itself; a `--format
    hf` folder holds it inside, as `library.json`. The one rule for the writer and readers."""
    shown = os.fspath(path)
    if os.path.isdir(shown):
        return [os.path.join(shown, DATASET_SIDECAR)]
    return list(dict.fromkeys((os.path.realpath(shown) + suffix, shown + suffix)))


def sidecars(*paths, suffix: str = ".library.json") -> list[str]:
    """The sidecars a reader may open beside each of `paths` (`sidecar_places`), for a command
    to name among its inputs."""
    out = []
    for p in paths:
        if p is None or is_stdout(p):
            continue
        try:
            out += sidecar_places(_text(p), suffix)
        except (OutputRefused, OSError, ValueError):
            continue
    return out


def keep_mode(tmp, real: Path, new_mode: int) -> None:
    """Give the temporary file `tmp` the mode (and, as root, the owner) of the file it will
    replace, or `new_mode` when there is none."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        os.chmod(tmp, new_mode)
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:
            pass
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


def folder(path) -> Path:
    """A folder outputs go into (eval's `-o DIR`): absent (created later) or a folder (a link to
    one followed); anything else refused. The files inside go through `target`."""
    if is_stdout(path):
        raise OutputRefused("this output is a folder: standard output (-) cannot hold it; give a folder")
    shown = _text(path)
    real = _real(shown)
    st = _standing(shown, real)
    if st is None:
        return real
    if not stat.S_ISDIR(st.st_mode):
        raise OutputRefused(f"{shown} is {kind(st.st_mode) or 'a file'}, not a folder: give a folder "
                            "(it is created when missing)")
    if not os.access(real, os.W_OK | os.X_OK):
        raise OutputRefused(f"{shown}: the folder is not writable")
    return real


def work_folder(path) -> Path:
    """A folder a command fills with files whose names it does not choose one by one (the
    trainer's weights, config.json, tokenizer files, checkpoints): `folder`'s rules, and it may
    not be, lie inside, or hold anything the command reads (`reading`), since any file in it
    may be replaced."""
    shown = _text(path)
    real = folder(shown)
    if _INPUTS is not None and not _REWRITING:
        for given, d in _INPUTS.folders:
            if d == real:
                raise OutputRefused(f"{shown}: this output folder is this command's input {given}, whose files "
                                    "writing into it would replace: give another folder (nothing was written)")
            if d in real.parents:
                raise OutputRefused(f"{shown}: this output folder lies inside this command's input {given}: give "
                                    "another folder (nothing was written)")
    _clash_folder(shown, real)
    return real


def dataset_folder(path) -> Path:
    """Where `racesc compile --format hf` may save its dataset folder: absent, or a folder that
    racesl saved before (datasets' files and racesl's `library.json`), which is then replaced
    as a whole (moved aside, the new one renamed in, the old removed). Any other folder is
    somebody's data and is refused, as is anything that is not a folder."""
    shown = _text(path)
    real = folder(shown)
    _clash_folder(shown, real)  # (replaced as a whole: nothing it holds may be an input)
    if real.exists():
        ours = (real / DATASET_SIDECAR).is_file() and any((real / m).is_file() for m in DATASET_MARKERS)
        if not ours:
            raise OutputRefused(f"{shown} exists and is not a saved dataset of racesl's: give --format hf a new "
                                "folder (or one it saved before, which is replaced)")
        _check_parent(shown, real)
    return real


def refusal(*paths, stdout: bool = False, inputs=None) -> str | None:
    """For a command's first lines: None when every path (None: not given) may be written,
    else the one line saying why not. `stdout`: the command writes `-` to standard output.
    `inputs`: what the command reads (`reading`): named for this check and every later write."""
    if inputs is not None:
        reading(*inputs)
    for p in paths:
        if p is None:
            continue
        if is_stdout(p):
            if stdout:
                continue
            return "this output cannot go to standard output (-): give a file path"
        try:
            target(p)
        except OutputRefused as e:
            return str(e)
    return None
