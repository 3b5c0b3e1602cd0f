"""Give a file new content without changing what the file is.

``write_file_content`` is what ``write`` and ``edit`` do to a local file:

- Only regular files are written. A FIFO, a device, a socket or a directory (also behind a
  symlink) is refused with ``NotRegularFileError`` before anything is opened for writing, so
  a device node never becomes a regular file and a FIFO never blocks the tool.
- Symlinks are resolved once, up front; the work then happens inside the resolved directory
  (through its descriptor), and a final component that is no longer the file that was
  checked is refused rather than followed.
- An existing file is written in place, as Pi does: overwritten and cut to its new length
  on the same inode, so hard links, open handles, file watchers, mode, owner, ACLs and extended
  attributes all still see one file. (Replacing it by a renamed copy, as pi once did, gives
  watchers and other names a new or a stale file.) What that costs in durability is paid
  back cheaply: the space the file grows by is reserved first, so a full disk fails before
  a byte changes; and the old content (up to ``RESTORE_LIMIT``) is kept in memory and put
  back if the write fails half way. Only a crash of the machine mid-write can leave a mix,
  as with Pi. (pi's own session file has stronger rules; this is the user's file.)
- A file being executed (``ETXTBSY``) cannot be opened for writing: it is replaced by a
  renamed copy with its mode, owner and group instead.
- A new file is created through a temporary sibling renamed into place (never seen half
  written), with the usual umask-derived mode.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod

from ..config_files import describe_kind


class NotRegularFileError(OSError):
    """The target exists but is not a regular file."""


def _read_umask() -> int:
    # os.umask can only be read by setting it; do it once, at import, not per write.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
RESTORE_LIMIT = 64 * 1024 * 1024
"""Largest old content kept in memory to put back after a failed in-place write."""


def write_file_content(path: str, data: bytes) -> None:
    """Replace the content of ``path`` (created if missing; its folder must exist).

    Args:
        path: The file; symlinks are followed to their target.
        data: The complete new content.

    Raises:
        NotRegularFileError: The target is a FIFO, device, socket or directory.
        PermissionError: The file is not writable (a rename would bypass that).
        OSError: Any other failure; the old content is then intact, except for a failure
            in the middle of an in-place write (see the module docstring).
    """
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    dir_fd = os.open(directory or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            _replace(dir_fd, name, data, None)
            return
        if stat_mod.S_ISLNK(st.st_mode):
            # It became a symlink after it was resolved: do not follow what was not checked.
            raise OSError(errno.ELOOP, f"{path} changed into a symlink while being written")
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFileError(errno.EINVAL, f"{path} is {describe_kind(st.st_mode)}, not a regular file")
        if not os.access(name, os.W_OK, dir_fd=dir_fd):
            if os.fstatvfs(dir_fd).f_flag & os.ST_RDONLY:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))  # not a permission the user can change
            raise PermissionError(errno.EACCES, f"Permission denied: {path}")
        try:
            _write_in_place(dir_fd, name, data, st)
        except OSError as exc:
            if exc.errno != errno.ETXTBSY:
                raise
            _replace(dir_fd, name, data, st)  # a running program: nothing was written yet
    finally:
        os.close(dir_fd)


def _replace(dir_fd: int, name: str, data: bytes, old: os.stat_result | None) -> None:
    tmp = f".{name[:200]}.pi-{os.urandom(4).hex()}.tmp"  # (secrets.token_hex, without its import)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        try:
            _write_all(fd, data)
            if old is None:
                os.fchmod(fd, 0o666 & ~_UMASK)
            else:
                mine = os.fstat(fd)
                if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
                    os.fchown(fd, old.st_uid, old.st_gid)
                # After chown, which clears set-id bits.
                os.fchmod(fd, stat_mod.S_IMODE(old.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        raise
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # the content is written; making the rename durable is best effort


def _write_in_place(dir_fd: int, name: str, data: bytes, old: os.stat_result) -> None:
    fd = _open_existing(dir_fd, name)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (old.st_dev, old.st_ino) or not stat_mod.S_ISREG(now.st_mode):
            raise OSError(errno.ESTALE, f"{name} was replaced by another file while being written")
        os.set_blocking(fd, True)
        if len(data) > now.st_size:
            try:
                # Only past the old end: nothing there to damage if the call is emulated.
                os.posix_fallocate(fd, now.st_size, len(data) - now.st_size)
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    os.ftruncate(fd, now.st_size)  # a partial reservation must not grow the file
                    raise
        previous = _old_content(fd, now.st_size)
        try:
            _write_all(fd, data, positional=True)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except OSError:
            if previous is not None:
                _put_back(fd, previous)
            raise
    finally:
        os.close(fd)


def _open_existing(dir_fd: int, name: str) -> int:
    # O_NONBLOCK: a FIFO swapped in since the check fails to open instead of blocking. Read
    # access too when allowed, to keep the old content for putting back.
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        return os.open(name, os.O_RDWR | flags, dir_fd=dir_fd)
    except PermissionError:
        return os.open(name, os.O_WRONLY | flags, dir_fd=dir_fd)  # a write-only file


def _old_content(fd: int, size: int) -> bytes | None:
    if size > RESTORE_LIMIT:
        return None
    try:
        chunks = []
        offset = 0
        while offset < size:
            chunk = os.pread(fd, size - offset, offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None  # opened write-only: nothing to keep


def _put_back(fd: int, previous: bytes) -> None:
    """Best effort after a failed write: the old bytes, at the old length."""
    try:
        _write_all(fd, previous, positional=True)
        os.ftruncate(fd, len(previous))
        os.fsync(fd)
    except OSError:
        pass  # the first error is the one to report


def _write_all(fd: int, data: bytes, *, positional: bool = False) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        chunk = view[offset:]
        written = os.pwrite(fd, chunk, offset) if positional else os.write(fd, chunk)
        offset += written
