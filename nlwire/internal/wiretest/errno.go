// Errno names in transcripts: the platform's errnos and Linux's numbers
// on the wire.

package wiretest

import (
	"errors"
	"strconv"
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// hostErrnos names the errno values of the platform's syscall package,
// which a Handle call returns (the wire carries Linux's numbers,
// linuxErrnos).
var hostErrnos = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT", syscall.ESRCH: "ESRCH", syscall.EINTR: "EINTR",
	syscall.EIO: "EIO", syscall.ENXIO: "ENXIO", syscall.E2BIG: "E2BIG", syscall.EAGAIN: "EAGAIN",
	syscall.ENOMEM: "ENOMEM", syscall.EACCES: "EACCES", syscall.EFAULT: "EFAULT", syscall.EBUSY: "EBUSY",
	syscall.EEXIST: "EEXIST", syscall.EXDEV: "EXDEV", syscall.ENODEV: "ENODEV", syscall.ENOTDIR: "ENOTDIR",
	syscall.EINVAL: "EINVAL", syscall.ENFILE: "ENFILE", syscall.ENOSPC: "ENOSPC", syscall.ERANGE: "ERANGE",
	syscall.EDEADLK: "EDEADLK", syscall.ENAMETOOLONG: "ENAMETOOLONG", syscall.ENOTEMPTY: "ENOTEMPTY",
	syscall.EPROTO: "EPROTO", syscall.EMSGSIZE: "EMSGSIZE", syscall.EPROTONOSUPPORT: "EPROTONOSUPPORT",
	syscall.EOPNOTSUPP: "EOPNOTSUPP", syscall.EAFNOSUPPORT: "EAFNOSUPPORT", syscall.EADDRINUSE: "EADDRINUSE",
	syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL", syscall.ENETDOWN: "ENETDOWN", syscall.ENETUNREACH: "ENETUNREACH",
	syscall.ENOBUFS: "ENOBUFS", syscall.EHOSTUNREACH: "EHOSTUNREACH", syscall.EALREADY: "EALREADY",
}

// callResult renders a Handle step's outcome: "ok", or the errno's name
// and the extack message.
func callResult(err error) string {
	if err == nil {
		return "ok"
	}
	var e syscall.Errno
	if !errors.As(err, &e) {
		return "error " + strconv.Quote(err.Error())
	}
	name, ok := hostErrnos[e]
	if !ok {
		name = strconv.Itoa(int(e))
	}
	msg := ""
	var ee *errno.Error
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	return "errno=" + name + " msg=" + strconv.Quote(msg)
}
