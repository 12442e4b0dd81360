// A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) prints which one and a backtrace with
// each frame's object and offset before the process dies as it would have: a crash inside a kernel
// plugin (another project's code, loaded at run time) then names the library and the offset
// (`addr2line -f -C -e <library> <offset>` turns it into a function and a line).
#pragma once

namespace tc::cli {

void install_crash_report();

}  // namespace tc::cli
