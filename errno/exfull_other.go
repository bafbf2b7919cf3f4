//go:build !linux

// EXFULL on systems whose syscall package does not name it: Linux's number
// (include/uapi/asm-generic/errno.h) moved out of the platform's range.

package errno

import "syscall"

// LinuxOnly is added to the Linux number of an errno that this platform's
// syscall package does not name, so that the value collides with none of
// the platform's own errnos.
const LinuxOnly = 1 << 16

// EXFULL is Linux's EXFULL, "exchange full" (54), which this platform does
// not name.
const EXFULL = syscall.Errno(LinuxOnly + 54)
