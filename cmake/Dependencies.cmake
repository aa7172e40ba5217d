# Every dependency comes from Debian's packages, found the CMake way.
# shaderc and SQLite are linked statically so that `vktune` runs on a machine
# that has nothing but a Vulkan driver and loader; the loader itself is never
# linked: volk dlopens it at run time.

find_package(Vulkan REQUIRED)            # headers only (Vulkan::Headers)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)  # the surrogate model's linear algebra

find_path(VOLK_SOURCE_DIR NAMES volk.c volk.h PATHS /usr/include REQUIRED
  DOC "Directory holding volk.c and volk.h (Debian: libvulkan-volk-dev)")

# shaderc_combined still needs glslang and SPIRV-Tools beside it on Debian.
set(_shaderc_parts shaderc_combined glslang MachineIndependent OSDependent
    GenericCodeGen OGLCompiler HLSL SPIRV SPIRV-Tools-opt SPIRV-Tools
    glslang-default-resource-limits)
set(_shaderc_libs "")
foreach(part IN LISTS _shaderc_parts)
  find_library(VKTUNE_LIB_${part} NAMES lib${part}.a REQUIRED)
  list(APPEND _shaderc_libs ${VKTUNE_LIB_${part}})
endforeach()
find_path(SHADERC_INCLUDE_DIR shaderc/shaderc.hpp REQUIRED)
add_library(vktune_shaderc INTERFACE)
target_include_directories(vktune_shaderc SYSTEM INTERFACE ${SHADERC_INCLUDE_DIR})
target_link_libraries(vktune_shaderc INTERFACE
  "-Wl,--start-group" ${_shaderc_libs} "-Wl,--end-group" Threads::Threads)

find_library(VKTUNE_SQLITE3_STATIC NAMES libsqlite3.a REQUIRED)
find_path(SQLITE3_INCLUDE_DIR sqlite3.h REQUIRED)
add_library(vktune_sqlite3 INTERFACE)
target_include_directories(vktune_sqlite3 SYSTEM INTERFACE ${SQLITE3_INCLUDE_DIR})
target_link_libraries(vktune_sqlite3 INTERFACE ${VKTUNE_SQLITE3_STATIC} Threads::Threads ${CMAKE_DL_LIBS} m)

if(VKTUNE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(VKTUNE_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# muparser evaluates the expressions of kernel spec files (kernels/spec/).
# Debian ships it as a shared library only (libmuparser2v5).
find_package(PkgConfig REQUIRED)
pkg_check_modules(muparser REQUIRED IMPORTED_TARGET muparser)
