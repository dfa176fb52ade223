#!/bin/bash
# mkinitramfs.sh - builds the initramfs of the tapir test VM: busybox and
# its applet links, the init of this directory, the tests, and extra files
# together with the shared libraries their executables need (via ldd).

set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)

usage()
{
	cat <<EOF
usage: $prog -o OUT [-r KVER] [-t DIR]... [-f SRC[:DEST]]... [-z COMP]
  -o OUT        the initramfs to write (a cpio archive, compressed)
  -r KVER       the kernel it is for; init fails the run on another kernel
  -t DIR        copy the tests in DIR into /tests (repeatable; merged)
  -f SRC[:DEST] add a file; DEST defaults to /usr/local/bin/NAME for an
                executable, /opt/tapir/NAME otherwise (repeatable)
  -z COMP       gzip (default), zstd or none
Dynamic executables (from -f and -t alike) get their shared libraries.
EOF
	exit 2
}

die()
{
	echo "$prog: $*" >&2
	exit 1
}

out=
kver=
comp=gzip
testdirs=()
files=()

while getopts 'o:r:t:f:z:h' opt; do
	case $opt in
	o) out=$OPTARG ;;
	r) kver=$OPTARG ;;
	t) testdirs+=("$OPTARG") ;;
	f) files+=("$OPTARG") ;;
	z) comp=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] && [ -n "$out" ] || usage
case $comp in
gzip) compress=(gzip -n -6) ;;
zstd) compress=(zstd -q -T0 -6) ;;
none) compress=(cat) ;;
*) die "unknown compression '$comp' (gzip, zstd or none)" ;;
esac

for tool in busybox cpio ldd "${compress[0]}"; do
	command -v "$tool" >/dev/null ||
		die "missing prerequisite: $tool (apt-get install" \
		    "busybox-static cpio libc-bin gzip zstd)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tapir-initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc/tapir} \
	 "$root"/{dev,proc,sys,tmp,run,root,tests,opt/tapir}

# is_elf FILE: true for an ELF file (executable, library or module).
is_elf()
{
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]
}

# add_libs FILE: copy the shared libraries (and the dynamic loader) of a
# dynamic executable to the same paths inside the image.
add_libs()
{
	local deps lib canon
	is_elf "$1" || return 0
	# ldd fails on static executables and modules: nothing to add.
	deps=$(ldd "$1" 2>/dev/null) || return 0
	if grep -q 'not found' <<<"$deps"; then
		die "$1: shared library not found:" \
		    "$(grep 'not found' <<<"$deps" | tr -s ' \t' ' ')"
	fi
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			  $1 ~ /^\// { print $1 }' <<<"$deps"); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
		# the host's canonical name of it (merged /usr), which the
		# translator records for -d and --ldd, leads to the copy
		canon=$(readlink -f "$lib")
		if [ "$canon" != "$lib" ] && [ ! -e "$root$canon" ]; then
			mkdir -p "$root$(dirname "$canon")"
			ln -s "$lib" "$root$canon"
		fi
	done
}

# add_file SRC[:DEST]
add_file()
{
	local src=${1%%:*} dest=${1#*:}
	[ "$dest" = "$1" ] && dest=
	[ -f "$src" ] || die "no such file: $src"
	if [ -z "$dest" ]; then
		if [ -x "$src" ]; then
			dest=/usr/local/bin/${src##*/}
		else
			dest=/opt/tapir/${src##*/}
		fi
	fi
	case $dest in
	/*) ;;
	*) die "$1: DEST must be an absolute path" ;;
	esac
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest"
	[ -x "$src" ] && add_libs "$src"
	return 0
}

busybox=$(command -v busybox)
cp -L "$busybox" "$root/bin/busybox"
add_libs "$busybox"
for applet in $("$busybox" --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done

install -m 0755 "$here/init" "$root/init"
[ -n "$kver" ] && echo "$kver" >"$root/etc/tapir/kver"
# staprun looks up the groups of its user, as on a real system.
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
printf 'root:x:0:\nstapusr:x:156:\nstapdev:x:157:\n' >"$root/etc/group"
# The kernel's built-in initramfs has /dev/console already; this copy
# only matters for a kernel without one, and needs root.
mknod -m 0600 "$root/dev/console" c 5 1 2>/dev/null || true

for dir in ${testdirs[@]+"${testdirs[@]}"}; do
	[ -d "$dir" ] || die "no such test directory: $dir"
	cp -RL "$dir/." "$root/tests/"
done
while IFS= read -r -d '' exe; do
	add_libs "$exe"
done < <(find "$root/tests" -type f -perm -u+x -print0)
for f in ${files[@]+"${files[@]}"}; do
	add_file "$f"
done

# Sorted names, renumbered inodes and one time stamp: the same inputs
# give the same image.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --quiet --null -o -H newc -R 0:0 --renumber-inodes) |
	"${compress[@]}" >"$tmp/initrd"
mv "$tmp/initrd" "$out"
