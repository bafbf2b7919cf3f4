//go:build !linux

// Linux's errno numbers, which NLMSG_ERROR carries, on a platform whose own
// numbers differ.

package nlwire

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// linuxErrnos maps this platform's errnos to Linux's numbers, which an
// NLMSG_ERROR carries whatever the platform; the names are those netsim's
// kernel returns, and those of the socket layer.
var linuxErrnos = map[syscall.Errno]int32{
	syscall.EPERM:           1,
	syscall.ENOENT:          2,
	syscall.ESRCH:           3,
	syscall.EINTR:           4,
	syscall.EIO:             5,
	syscall.ENXIO:           6,
	syscall.E2BIG:           7,
	syscall.EBADF:           9,
	syscall.EAGAIN:          11,
	syscall.ENOMEM:          12,
	syscall.EACCES:          13,
	syscall.EFAULT:          14,
	syscall.EBUSY:           16,
	syscall.EEXIST:          17,
	syscall.ENODEV:          19,
	syscall.ENOTDIR:         20,
	syscall.EINVAL:          22,
	syscall.ENFILE:          23,
	syscall.EMFILE:          24,
	syscall.ENOSPC:          28,
	syscall.ERANGE:          34,
	syscall.EDEADLK:         35,
	syscall.ENAMETOOLONG:    36,
	syscall.ENOSYS:          38,
	syscall.ENOTEMPTY:       39,
	syscall.ELOOP:           40,
	syscall.ENODATA:         61,
	syscall.EOVERFLOW:       75,
	syscall.EMSGSIZE:        90,
	syscall.ENOPROTOOPT:     92,
	syscall.EPROTONOSUPPORT: 93,
	syscall.EOPNOTSUPP:      95,
	syscall.EAFNOSUPPORT:    97,
	syscall.EADDRINUSE:      98,
	syscall.EADDRNOTAVAIL:   99,
	syscall.ENETDOWN:        100,
	syscall.ENETUNREACH:     101,
	syscall.ENOBUFS:         105,
	syscall.EHOSTUNREACH:    113,
}

// linuxErrno returns the Linux number of e: from the table, or for the
// errnos the platform does not name (errno.EXFULL), the number they carry.
// An errno outside both is passed as it is.
func linuxErrno(e syscall.Errno) int32 {
	if n, ok := linuxErrnos[e]; ok {
		return n
	}
	if e >= errno.LinuxOnly {
		return int32(e - errno.LinuxOnly)
	}
	return int32(e)
}
