# tapset_nfsd: start an NFSv4-only server (no rpcbind needed: v4 may
# fail to register) on the loopback interface and let the NFS client
# try to mount it; the mount cannot finish (no mountd, no exports) and
# is cut short.  What the script sees is the run's output.
cat >/tmp/nfsd-run.sh <<'INNER'
ifconfig lo 127.0.0.1 up
for m in sunrpc grace lockd auth_rpcgss nfs_acl nfsd netfs fscache nfs \
	 dns_resolver nfsv4; do
	insmod kmod/$m.ko
done
mkdir -p /tmp/nfsd /tmp/nfsmnt
mount -t nfsd nfsd /tmp/nfsd
echo "-3 +4" >/tmp/nfsd/versions
echo 1 >/tmp/nfsd/threads
timeout 10 mount -t nfs4 -o addr=127.0.0.1,vers=4.1,soft,timeo=50,retrans=1 \
	127.0.0.1:/ /tmp/nfsmnt
umount /tmp/nfsmnt
echo 0 >/tmp/nfsd/threads
umount /tmp/nfsd
INNER
staprun -c 'sh /tmp/nfsd-run.sh >/dev/null 2>&1' "$@"
