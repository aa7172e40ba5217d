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

# An interface target linking Debian's static libraries lib<part>.a as one
# group (they refer to each other in no fixed order), with the directory that
# holds `header` on its include path.
function(vktune_static_group target header)
  set(libs "")
  foreach(part IN LISTS ARGN)
    find_library(VKTUNE_LIB_${part} NAMES lib${part}.a REQUIRED)
    list(APPEND libs ${VKTUNE_LIB_${part}})
  endforeach()
  find_path(${target}_INCLUDE_DIR ${header} REQUIRED)
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE ${${target}_INCLUDE_DIR})
  target_link_libraries(${target} INTERFACE "-Wl,--start-group" ${libs} "-Wl,--end-group" Threads::Threads)
endfunction()

# shaderc_combined still needs glslang and SPIRV-Tools beside it on Debian.
vktune_static_group(vktune_shaderc shaderc/shaderc.hpp shaderc_combined glslang MachineIndependent OSDependent
  GenericCodeGen OGLCompiler HLSL SPIRV SPIRV-Tools-opt SPIRV-Tools glslang-default-resource-limits)
# SPIRV-Cross reads a compiled module's interface (harness/shader_interface.cpp);
# Debian's libspirv-cross-c-shared-dev ships its static libraries beside the
# shared one, and its C API reaches every backend's library.
vktune_static_group(vktune_spirv_cross spirv_cross/spirv_cross_c.h spirv-cross-c spirv-cross-glsl spirv-cross-hlsl
  spirv-cross-msl spirv-cross-cpp spirv-cross-reflect spirv-cross-core)

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
