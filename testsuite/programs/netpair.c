/* netpair.c - a fixed exchange over the loopback interface, in one
 * process, for the socket, tcp, udp and netdev tapset tests: brings lo
 * up, then a TCP connection 127.0.0.1:4002 -> 127.0.0.1:4001 that
 * sends 100 bytes and answers 50, and a connected UDP pair
 * 127.0.0.1:4004 -> 127.0.0.1:4003 that sends one 30-byte datagram.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		die("SIOCGIFFLAGS");
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			die("SIOCSIFFLAGS");
	}
	close(fd);
}

static struct sockaddr_in addr(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A socket of type bound to 127.0.0.1:port. */
static int bound(int type, int port)
{
	struct sockaddr_in a = addr(port);
	int one = 1, fd = socket(AF_INET, type, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
	return fd;
}

static void xconnect(int fd, int port)
{
	struct sockaddr_in a = addr(port);

	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
}

/* Receive exactly n bytes. */
static void recv_all(int fd, char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = recv(fd, buf + got, n - got, 0);
		if (r <= 0)
			die("recv");
		got += r;
	}
}

int main(void)
{
	char buf[100];
	int lst, cli, srv, u1, u2;

	lo_up();
	memset(buf, 'x', sizeof(buf));

	lst = bound(SOCK_STREAM, 4001);
	if (listen(lst, 1) < 0)
		die("listen");
	cli = bound(SOCK_STREAM, 4002);
	xconnect(cli, 4001);
	srv = accept(lst, NULL, NULL);
	if (srv < 0)
		die("accept");
	if (send(cli, buf, 100, 0) != 100)
		die("send");
	recv_all(srv, buf, 100);
	if (send(srv, buf, 50, 0) != 50)
		die("send");
	recv_all(cli, buf, 50);
	close(cli);
	close(srv);
	close(lst);

	u1 = bound(SOCK_DGRAM, 4003);
	u2 = bound(SOCK_DGRAM, 4004);
	xconnect(u2, 4003);
	if (send(u2, buf, 30, 0) != 30)
		die("send");
	if (recv(u1, buf, sizeof(buf), 0) != 30)
		die("recv");
	close(u2);
	close(u1);
	return 0;
}
