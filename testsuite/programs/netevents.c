/* netevents.c - network events for the netfilter and netdev tapset
 * tests, over the loopback interface (brought up first), and the
 * vectored I/O of the vfs tests:
 *
 *   netevents udp   three UDP datagrams of 10, 20 and 30 bytes from
 *                   127.0.0.1:4006 to 127.0.0.1:4005, then receives
 *                   until 300 ms pass with nothing: prints
 *                   "received N" for each, then "timed out"
 *   netevents udp6  one UDP datagram of 20 bytes from [::1]:4008 to
 *                   [::1]:4007, received: prints "received 20"
 *   netevents dev   lo's MTU set to 1500 and back to 65536 (SIOCSIFMTU),
 *                   /proc/net/dev read (the devices' statistics), and
 *                   lo made promiscuous and back (a packet socket's
 *                   PACKET_MR_PROMISC membership)
 *   netevents iov   writev() of "abc" and "defg" to /tmp/netevents.out,
 *                   then readv() of them back (the vfs tapset)
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void lo_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	strcpy(ifr->ifr_name, "lo");
	if (ioctl(fd, req, ifr) < 0)
		die("ioctl");
	close(fd);
}

static void lo_up(void)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	lo_ioctl(SIOCGIFFLAGS, &ifr);
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		lo_ioctl(SIOCSIFFLAGS, &ifr);
	}
}

static int udp_bound(int port)
{
	struct sockaddr_in a;
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
	return fd;
}

static void udp(void)
{
	struct timeval tv = { 0, 300000 };
	struct sockaddr_in to;
	char buf[64];
	int rx = udp_bound(4005), tx = udp_bound(4006), i;
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(4005);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 1; i <= 3; i++)
		if (sendto(tx, buf, 10 * i, 0, (struct sockaddr *)&to,
			   sizeof(to)) != 10 * i)
			die("sendto");
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = recv(rx, buf, sizeof(buf), 0)) > 0)
		printf("received %zd\n", n);
	printf("timed out\n");
	close(tx);
	close(rx);
}

static int udp6_bound(int port)
{
	struct sockaddr_in6 a;
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(port);
	a.sin6_addr = in6addr_loopback;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind6");
	return fd;
}

static void udp6(void)
{
	struct sockaddr_in6 to;
	char buf[64];
	int rx = udp6_bound(4007), tx = udp6_bound(4008);
	ssize_t n;

	memset(buf, 'y', sizeof(buf));
	memset(&to, 0, sizeof(to));
	to.sin6_family = AF_INET6;
	to.sin6_port = htons(4007);
	to.sin6_addr = in6addr_loopback;
	if (sendto(tx, buf, 20, 0, (struct sockaddr *)&to, sizeof(to)) != 20)
		die("sendto");
	n = recv(rx, buf, sizeof(buf), 0);
	if (n < 0)
		die("recv");
	printf("received %zd\n", n);
	close(tx);
	close(rx);
}

static void dev(void)
{
	struct packet_mreq mr;
	struct ifreq ifr;
	char line[256];
	FILE *f;
	int fd;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = 1500;
	lo_ioctl(SIOCSIFMTU, &ifr);
	ifr.ifr_mtu = 65536;
	lo_ioctl(SIOCSIFMTU, &ifr);

	f = fopen("/proc/net/dev", "r");
	if (!f)
		die("/proc/net/dev");
	while (fgets(line, sizeof(line), f))
		;
	fclose(f);

	fd = socket(AF_PACKET, SOCK_RAW, htons(0x0003));
	if (fd < 0)
		die("packet socket");
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = (int)if_nametoindex("lo");
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0)
		die("PACKET_ADD_MEMBERSHIP");
	if (setsockopt(fd, SOL_PACKET, PACKET_DROP_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0)
		die("PACKET_DROP_MEMBERSHIP");
	close(fd);
}

static void iov(void)
{
	char a[3], b[4];
	struct iovec out[2] = { { "abc", 3 }, { "defg", 4 } };
	struct iovec in[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd = open("/tmp/netevents.out", O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die("open");
	if (writev(fd, out, 2) != 7)
		die("writev");
	if (lseek(fd, 0, SEEK_SET) != 0 || readv(fd, in, 2) != 7)
		die("readv");
	close(fd);
	unlink("/tmp/netevents.out");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	lo_up();
	if (argc == 2 && !strcmp(argv[1], "udp"))
		udp();
	else if (argc == 2 && !strcmp(argv[1], "udp6"))
		udp6();
	else if (argc == 2 && !strcmp(argv[1], "dev"))
		dev();
	else if (argc == 2 && !strcmp(argv[1], "iov"))
		iov();
	else {
		fprintf(stderr, "usage: netevents udp|udp6|dev|iov\n");
		return 2;
	}
	return 0;
}
