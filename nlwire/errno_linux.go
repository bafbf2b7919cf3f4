// Linux's errno numbers, which NLMSG_ERROR carries: on Linux the
// platform's own.

package nlwire

import "syscall"

// linuxErrno returns the Linux number of e, which on Linux is e itself.
func linuxErrno(e syscall.Errno) int32 { return int32(e) }
