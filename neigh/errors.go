// The errors of the neighbour tables, with the extack messages
// net/core/neighbour.c sets (none for ENOBUFS and EPERM).

package neigh

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

var (
	errNoBufs   = errno.New(syscall.ENOBUFS, "")
	errPerm     = errno.New(syscall.EPERM, "")
	errDead     = errno.New(syscall.ENOENT, "Neighbor entry is now dead")
	errNoLLAddr = errno.New(syscall.EINVAL, "No link layer address given")
)
