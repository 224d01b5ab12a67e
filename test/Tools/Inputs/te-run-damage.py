"""Damages a copy of a file the ways files get damaged, for te-run's tests.

    te-run-damage.py IN OUT truncate N     keep the first N bytes
    te-run-damage.py IN OUT chop N         drop the last N bytes
    te-run-damage.py IN OUT append N       add N zero bytes at the end
    te-run-damage.py IN OUT cut OFFSET N   remove N bytes at OFFSET
    te-run-damage.py IN OUT flip OFFSET    invert the byte at OFFSET
                                           (negative: from the end)
    te-run-damage.py IN OUT flip-section NAME
                                           invert the first byte of the ELF64
                                           section NAME (e.g. .rela.dyn)

It only breaks bytes: it knows nothing of TEQ's trailer (a test that needs a
valid trailer around a bad manifest uses te-seal --unchecked instead).
"""

import struct
import sys


def section_offset(data, name):
    """File offset of ELF64 little-endian section `name`."""
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    names_offset, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        header = shoff + i * shentsize
        name_offset, = struct.unpack_from("<I", data, header)
        start = names_offset + name_offset
        if data[start:data.index(b"\0", start)].decode() == name:
            offset, size = struct.unpack_from("<QQ", data, header + 24)
            if size == 0:
                sys.exit(f"section {name} is empty")
            return offset
    sys.exit(f"no section {name}")


def main():
    source, target, mode, *args = sys.argv[1:]
    data = bytearray(open(source, "rb").read())
    if mode == "truncate":
        data = data[: int(args[0])]
    elif mode == "chop":
        data = data[: len(data) - int(args[0])]
    elif mode == "append":
        data += bytes(int(args[0]))
    elif mode == "cut":
        offset, count = int(args[0]), int(args[1])
        data = data[:offset] + data[offset + count :]
    elif mode == "flip":
        data[int(args[0])] ^= 0xFF
    elif mode == "flip-section":
        data[section_offset(data, args[0])] ^= 0xFF
    else:
        sys.exit(f"unknown mode {mode}")
    open(target, "wb").write(data)


if __name__ == "__main__":
    main()
