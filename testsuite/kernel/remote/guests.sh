# testsuite/kernel/remote/guests.sh - QEMU guests with an ssh server
# (dropbear) reachable from here on 127.0.0.1:PORT through QEMU's user
# networking; keys made for the run, and an ssh client configuration
# that uses only them (never ~/.ssh).  Sourced by bash, not run: by
# check.sh and by bench/remote.sh.
#
#   guests_init DIR        keys, ssh_config, known_hosts in DIR; sets
#                          the array guest_ssh (the client: ssh -F ...)
#   free_port              prints a TCP port of 127.0.0.1 nothing uses
#   guest_boot NAME KVER PORT
#                          builds the guest's initramfs and boots it in
#                          the background (console DIR/NAME.console, TAP
#                          DIR/NAME.tap, exit status DIR/NAME.rc); the
#                          array guest_files adds mkinitramfs -f
#                          arguments, guest_hostfwd more ",hostfwd=..."
#   guest_wait NAME PORT SECS
#                          until ssh answers on PORT (or fails)
#   guest_stop NAME PORT   asks the guest to power off, waits for it
#
# Needs: qemu-system-x86_64, dropbear and dropbearkey (dropbear-bin),
# ssh and ssh-keygen (openssh-client), python3 (free_port), and a
# STAPRUN to put in the guests.
#
# shellcheck shell=bash

guests_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
guests_vm=$(cd "$guests_here/../../vm" && pwd)
declare -A guest_pid
guest_files=()
guest_hostfwd=

guests_init()
{
	guests_dir=$1
	local d=$1 pub

	mkdir -p "$d"
	dropbearkey -t ed25519 -f "$d/host_key" >/dev/null 2>&1 || return 1
	pub=$(dropbearkey -y -f "$d/host_key" 2>/dev/null |
	      grep '^ssh-ed25519 ' | cut -d' ' -f1,2)
	[ -n "$pub" ] || return 1
	echo "$pub" >"$d/host_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C tapir-test -f "$d/id_ed25519" ||
		return 1
	cp "$d/id_ed25519.pub" "$d/authorized_keys"
	: >"$d/known_hosts"
	cat >"$d/ssh_config" <<EOC
Host *
	User root
	IdentityFile $d/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	HostKeyAlgorithms ssh-ed25519
	BatchMode yes
	ConnectTimeout 60
	LogLevel ERROR
EOC
	guest_ssh=(ssh -F "$d/ssh_config")
}

free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# The kernel's e1000 driver, uncompressed (busybox insmod takes no .xz).
guest_e1000()
{
	local k=$1 out=$2 ko

	ko=$(find "/lib/modules/$k/kernel/drivers/net/ethernet/intel/e1000" \
	     -name 'e1000.ko*' | head -n 1)
	[ -n "$ko" ] || return 1
	case $ko in
	*.xz) xz -dc "$ko" >"$out" ;;
	*.zst) zstd -qdc "$ko" >"$out" ;;
	*) cp "$ko" "$out" ;;
	esac
}

guest_boot()
{
	local name=$1 k=$2 port=$3 d=$guests_dir

	echo "[127.0.0.1]:$port $(cat "$d/host_key.pub")" >>"$d/known_hosts"
	guest_e1000 "$k" "$d/$name.e1000.ko" || {
		echo "no e1000 module for $k" >"$d/$name.tap"
		return 1
	}
	"$guests_vm/mkinitramfs.sh" -o "$d/$name.initrd" -r "$k" \
		-f "$STAPRUN:/usr/local/bin/staprun" \
		-f "$(command -v dropbear):/usr/sbin/dropbear" \
		-f "$guests_here/guest-sshd:/usr/local/bin/guest-sshd" \
		-f "$d/$name.e1000.ko:/opt/tapir/e1000.ko" \
		-f "$d/host_key:/opt/tapir/host_key" \
		-f "$d/authorized_keys:/opt/tapir/authorized_keys" \
		${guest_files[@]+"${guest_files[@]}"} \
		>"$d/$name.tap" 2>&1 || return 1
	"$guests_vm/run-vm.sh" -k "$k" -i "$d/$name.initrd" -m 1G \
		-t 900 -u 850 -l "$d/$name.console" -c guest-sshd \
		-q "-netdev user,id=n0,hostfwd=tcp:127.0.0.1:$port-:22${guest_hostfwd:-} -device e1000,netdev=n0,romfile= -pidfile $d/$name.qemu.pid" \
		>"$d/$name.tap" 2>&1 &
	guest_pid[$name]=$!
}

guest_wait()
{
	local name=$1 port=$2 limit=$3 t0=$SECONDS

	# Not before the guest's network is up: QEMU accepts a connection
	# at once and retries the guest's port with TCP's back-off, which
	# would hold an early ssh for many seconds.
	while ! grep -aq '^guest-sshd: .* listening' \
	      "$guests_dir/$name.console" 2>/dev/null; do
		[ $((SECONDS - t0)) -lt "$limit" ] || return 1
		kill -0 "${guest_pid[$name]}" 2>/dev/null || return 1
		sleep 0.2
	done
	while [ $((SECONDS - t0)) -lt "$limit" ]; do
		if timeout 10 "${guest_ssh[@]}" -p "$port" 127.0.0.1 true \
		   </dev/null >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

guest_stop()
{
	local name=$1 port=$2 rc=0

	[ -n "${guest_pid[$name]:-}" ] || return 1
	timeout 60 "${guest_ssh[@]}" -p "$port" 127.0.0.1 'touch /tmp/stop' \
		</dev/null >/dev/null 2>&1
	wait "${guest_pid[$name]}" || rc=$?
	unset "guest_pid[$name]"
	return $rc
}

# guests_kill: what is still running, at exit.
guests_kill()
{
	local name

	for name in "${!guest_pid[@]}"; do
		[ -s "$guests_dir/$name.qemu.pid" ] &&
			kill "$(cat "$guests_dir/$name.qemu.pid")" 2>/dev/null
		kill "${guest_pid[$name]}" 2>/dev/null
	done
	return 0
}
