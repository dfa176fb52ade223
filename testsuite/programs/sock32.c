/* sock32.c - a 32-bit program (built -m32 -static) that sends and
 * receives through socketcall(2), as the i386 C library's send() and
 * recv() do: "hello" from one end of a socket pair, received with
 * MSG_DONTWAIT at the other.  The run test syscall_send_recv32 probes
 * syscall.send and syscall.recv on it.
 */
#include <linux/net.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	unsigned long a[4];
	char buf[16];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	a[0] = (unsigned long)sv[0];
	a[1] = (unsigned long)"hello";
	a[2] = 5;
	a[3] = 0;
	if (syscall(SYS_socketcall, SYS_SEND, a) != 5)
		return 2;
	a[0] = (unsigned long)sv[1];
	a[1] = (unsigned long)buf;
	a[2] = sizeof(buf);
	a[3] = MSG_DONTWAIT;
	if (syscall(SYS_socketcall, SYS_RECV, a) != 5)
		return 3;
	return 0;
}
