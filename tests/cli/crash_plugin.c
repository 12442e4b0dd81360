/* A kernel "plugin" that crashes as soon as tilecheck asks for its description: the crash report
   (cli/crash_report.h) must name the signal and this library. */
#include <stddef.h>

const void* tc_plugin_info(void);

const void* tc_plugin_info(void) {
  volatile const int* nowhere = NULL;
  return (const void*)(size_t)*nowhere; /* SIGSEGV */
}
