package errno

import "syscall"

// EXFULL is Linux's EXFULL, "exchange full".
const EXFULL = syscall.EXFULL
