// Linux's prctl, which Swift cannot call (it is variadic): a helper asks for a signal when its
// parent ends (ChildProcess.endWithParent). Nothing is linked: it is libc's.
#ifdef __linux__
#include <sys/prctl.h>
#include <signal.h>
/// Asks the kernel to send `signal` to this process when the thread that started it ends.
static inline int meridian_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}
#endif
