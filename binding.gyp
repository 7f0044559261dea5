{
  # node-gyp builds the foreground helper (native/foreground.c) into
  # build/Release/agentwatch_foreground.node during `npm ci` (package.json "install").
  # Plain C Node-API: no node-addon-api, no C++. Windows has no tcgetpgrp; there the build
  # fails, the install script only warns, and agentwatch has no foreground signal.
  "targets": [
    {
      "target_name": "agentwatch_foreground",
      "sources": ["native/foreground.c"],
      "cflags": ["-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-O2"],
      "xcode_settings": {
        "OTHER_CFLAGS": ["-std=c99", "-Wall", "-Wextra", "-O2"],
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      }
    }
  ]
}
