#!/bin/sh
# kretprobe_sleep.sh - the driver of kretprobe_sleep.stp.
mod=t_kretprobe_sleep
rm -f /tmp/ks.fifo /tmp/ks.got
mkfifo /tmp/ks.fifo
staprun "$@" >/tmp/ks.out 2>/tmp/ks.err &
pid=$!
i=0
while ! grep -qs '^armed$' /tmp/ks.out && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
# a sleeper in do_nanosleep, a reader in pipe_read (the fifo is open
# for writing too, by the reader itself, so that its open returns)
sleep 4 &
sleeper=$!
sh -c 'exec 3<>/tmp/ks.fifo; head -n 1 <&3 >/tmp/ks.got' &
reader=$!
wait $pid
echo "staprun: status $?"
cat /tmp/ks.out /tmp/ks.err
grep -q "^$mod " /proc/modules && echo "module left loaded"
echo woken >/tmp/ks.fifo
wait $reader
echo "reader: status $?, read $(cat /tmp/ks.got)"
wait $sleeper
echo "sleeper: status $?"
