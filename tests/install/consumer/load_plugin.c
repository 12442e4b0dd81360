/* Loads a plugin as tilecheck does (dlopen, then the three symbols) and prints what it says:
 *   load_plugin <library.so>   -> "consumer-stub none abi 1 configs 1 run 2: consumer-stub runs nothing" */
#include <dlfcn.h>
#include <stdio.h>

#include "tilecheck/plugin/plugin.h"

typedef const tc_plugin_info_t* (*info_fn)(void);
typedef tc_status (*run_fn)(const tc_problem*, char*, size_t);

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: load_plugin <library.so>\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "load_plugin: %s\n", dlerror());
    return 1;
  }
  info_fn info = (info_fn)dlsym(library, "tc_plugin_info");
  run_fn run = (run_fn)dlsym(library, "tc_plugin_run");
  if (!info || !run || !dlsym(library, "tc_plugin_workspace_size")) {
    fprintf(stderr, "load_plugin: %s does not export the plugin ABI\n", argv[1]);
    return 1;
  }
  const tc_plugin_info_t* i = info();
  tc_problem problem = {0};
  problem.abi_version = TC_PLUGIN_ABI_VERSION;
  char message[128] = "";
  const tc_status status = run(&problem, message, sizeof message);
  printf("%s %s abi %d configs %d run %d: %s\n", i->name, i->variant, i->abi_version, i->config_count, (int)status,
         message);
  return i->abi_version == TC_PLUGIN_ABI_VERSION ? 0 : 1;
}
