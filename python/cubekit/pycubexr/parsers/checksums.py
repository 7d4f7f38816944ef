"""Finds tar headers with a wrong checksum (CubeLib 4.8 wrote such archives), so that the
pyCubexR layer warns as pyCubexR does. cubekit's reader accepts these archives anyway."""

import os

_BLOCK = 512


def _checksum_ok(header: bytes) -> bool:
    field = header[148:156].split(b"\0", 1)[0].strip()
    try:
        written = int(field or b"0", 8)
    except ValueError:
        return False
    blanked = header[:148] + b" " * 8 + header[156:]
    unsigned = sum(blanked)
    signed = sum(b - 256 if b > 127 else b for b in blanked)
    return written in (unsigned, signed)


def _member_size(header: bytes) -> int:
    field = header[124:136]
    if field[0] & 0x80:  # base-256
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip()
    return int(text or b"0", 8)


def has_bad_checksum(path: str) -> bool:
    """True when a member header of the tar archive at `path` has a wrong checksum. Not a tar
    archive (a Cube 3 file) or unreadable: False (the reader reports real problems)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            offset = 0
            while offset + _BLOCK <= size:
                f.seek(offset)
                header = f.read(_BLOCK)
                if header.count(0) == _BLOCK:
                    return False
                if header[257:262] != b"ustar" and not _checksum_ok(header):
                    return False  # not a tar archive at all
                if not _checksum_ok(header):
                    return True
                offset += _BLOCK + (_member_size(header) + _BLOCK - 1) // _BLOCK * _BLOCK
    except (OSError, ValueError):
        return False
    return False
