# What every native module of the project builds with: C++17 (C11 for C sources), warnings as
# errors, position-independent code, hidden symbols unless a public header exports them, and
# ACCEL_NATIVE_OUTPUT_DIR for shared libraries (Maven passes <root>/target/native/lib).
# A module's CMakeLists.txt includes this file right after project().
set(CMAKE_C_STANDARD 11)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
add_compile_options(-Wall -Wextra -Werror)

set(ACCEL_NATIVE_OUTPUT_DIR "${CMAKE_BINARY_DIR}/lib" CACHE PATH "Where shared libraries land")

# hadoop-accel-common's native sources (include/hadoop_accel/accel.h, src/crc32.cc, ...), for a
# module that compiles a shared piece into its own library instead of writing it again.
get_filename_component(ACCEL_COMMON_NATIVE_DIR "${CMAKE_CURRENT_LIST_DIR}/../native" ABSOLUTE)
