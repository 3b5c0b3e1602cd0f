"""Give a file new content without changing what the file is.

``write_file_content`` is what ``write`` and ``edit`` do to a local file:

- Only regular files are written. A FIFO, a device, a socket or a directory (also behind a
  symlink) is refused with ``NotRegularFileError`` before anything is opened for writing, so
  a device node never becomes a regular file and a FIFO never blocks the tool.
- Symlinks are resolved once, up front; the work then happens inside the resolved directory
  (through its descriptor), and a final component that is no longer the file that was
  checked is refused rather than followed.
- An existing file keeps its inode properties. When the file can be reproduced exactly (one
  link, no extended attributes or ACLs, an owner and group this process can set) the new
  content goes to a sibling temporary file that gets the old mode, owner and group and is
  renamed over it, so a crash or a full disk leaves the old content whole. Otherwise (hard
  links, ACLs, someone else's file) it is written in place; the space it grows by is
  reserved first, so a full disk fails before a byte changes.
- A new file is created the same way as a replacement, with the usual umask-derived mode.
"""

from __future__ import annotations

import errno
import os
import secrets
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
            raise PermissionError(errno.EACCES, f"Permission denied: {path}")
        if _reproducible_by_rename(st, dir_fd, name):
            _replace(dir_fd, name, data, st)
        else:
            _write_in_place(dir_fd, name, data, st)
    finally:
        os.close(dir_fd)


def _reproducible_by_rename(st: os.stat_result, dir_fd: int, name: str) -> bool:
    """Whether a renamed copy would be the same file to everyone but its inode number."""
    if st.st_nlink > 1:
        return False  # the other names would keep the old content
    euid = os.geteuid()
    if euid != 0:
        if st.st_uid != euid:
            return False
        if st.st_gid != os.getegid() and st.st_gid not in os.getgroups():
            return False
    try:
        # ACLs, capabilities, labels and user attributes would not come along.
        names = os.listxattr(f"/proc/self/fd/{dir_fd}/{name}", follow_symlinks=False)
    except OSError:
        return True  # no extended attributes on this file system (or no /proc): nothing to lose
    # An SELinux label is given again by the folder's policy; anything else would be lost.
    return all(attr == "security.selinux" for attr in names)


def _replace(dir_fd: int, name: str, data: bytes, old: os.stat_result | None) -> None:
    tmp = f".{name[:200]}.pi-{secrets.token_hex(4)}.tmp"
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
    # O_NONBLOCK: a FIFO swapped in since the check fails to open instead of blocking.
    fd = os.open(name, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
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
        _write_all(fd, data, positional=True)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, *, positional: bool = False) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        chunk = view[offset:]
        written = os.pwrite(fd, chunk, offset) if positional else os.write(fd, chunk)
        offset += written
