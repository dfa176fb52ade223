#!/bin/bash
# extract-vmlinux.sh - unpacks the ELF vmlinux inside an x86 bzImage.
# QEMU boots that ELF directly (PVH entry), which spares the guest the
# decompression, slow under TCG; it also carries the kernel's .BTF.

set -euo pipefail

prog=${0##*/}

die()
{
	echo "$prog: $*" >&2
	exit 1
}

[ $# -eq 2 ] || { echo "usage: $prog BZIMAGE OUT" >&2; exit 2; }
image=$1
out=$2
[ -r "$image" ] || die "cannot read $image"

# le FILE OFFSET [BYTES]: an unsigned little-endian field of FILE (4 bytes
# unless told).
le()
{
	od -An -tu"${3:-4}" -j "$2" -N "${3:-4}" "$1" | tr -d ' '
}

# The x86 boot protocol (2.08 and later) says where the payload lies:
# setup_sects at 0x1f1, the "HdrS" magic at 0x202, payload_offset and
# payload_length at 0x248 and 0x24c, both relative to the protected-mode
# code that follows the setup sectors.
[ "$(od -An -c -j $((0x202)) -N 4 "$image" | tr -d ' ')" = HdrS ] ||
	die "$image: not an x86 bzImage"
setup_sects=$(le "$image" $((0x1f1)) 1)
[ "$setup_sects" -ne 0 ] || setup_sects=4
payload_offset=$(le "$image" $((0x248)))
payload_length=$(le "$image" $((0x24c)))
[ "$payload_length" -gt 4 ] || die "$image: boot protocol too old"
start=$(((setup_sects + 1) * 512 + payload_offset))

# payload: the compressed stream, without the little-endian size of the
# uncompressed kernel that the build appends to it.
payload()
{
	dd if="$image" bs=64K iflag=skip_bytes,count_bytes status=none \
	   skip="$start" count=$((payload_length - 4))
}

magic=$(od -An -tx1 -j "$start" -N 6 "$image" | tr -d ' ')
case $magic in
1f8b*)		decompress=(gzip -dc) ;;
fd377a585a00)	decompress=(xz -dc) ;;
28b52ffd*)	decompress=(zstd -dcq) ;;
5d00*)		decompress=(xz -dc --format=lzma) ;;
425a68*)	decompress=(bzip2 -dc) ;;
02214c18*)	decompress=(lz4 -dcq) ;;
*)		die "$image: unknown kernel compression (magic $magic)" ;;
esac
command -v "${decompress[0]}" >/dev/null ||
	die "missing prerequisite: ${decompress[0]} (to unpack $image)"

payload | "${decompress[@]}" >"$out.tmp"
want=$(le "$image" $((start + payload_length - 4)))
got=$(stat -c %s "$out.tmp")
if [ "$got" != "$want" ]; then
	rm -f "$out.tmp"
	die "$image: unpacked $got bytes, the header says $want"
fi
[ "$(od -An -c -N 4 "$out.tmp" | tr -d ' ')" = 177ELF ] || {
	rm -f "$out.tmp"
	die "$image: the payload is not an ELF file"
}
mv "$out.tmp" "$out"
