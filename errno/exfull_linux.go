// EXFULL from the system's errno numbers where Linux defines it
// (include/uapi/asm-generic/errno.h).

package errno

import "syscall"

// EXFULL is Linux's EXFULL, "exchange full".
const EXFULL = syscall.EXFULL
