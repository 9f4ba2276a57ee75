# The GUI half of vbdlab (included by app/CMakeLists.txt): the Vulkan renderer (vbd_render, also used by
# `vbdlab render` and the render tests), the GLFW + Dear ImGui app, and their tests (label `render`).
if(NOT VBD_GUI_DEPS_FOUND OR NOT VBD_HAVE_SHADERS)
  message(STATUS "vbdlab: building without the GUI (Vulkan/GLFW/ImGui/glslc missing)")
  return()
endif()

find_package(Vulkan REQUIRED)
find_package(glfw3 REQUIRED)
file(GLOB render_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/render/*.cpp)
add_library(vbd_render STATIC ${render_srcs})
target_link_libraries(vbd_render PUBLIC Vulkan::Vulkan)
target_include_directories(vbd_render PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} PRIVATE ${VBD_SHADER_DIR})
target_compile_options(vbd_render PRIVATE ${VBD_WARNINGS})
target_compile_definitions(vbd_render PUBLIC VBD_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(vbd_render vbd_shaders)
target_link_libraries(vbd_render PUBLIC vbd_engine vbd_lab vbd_gui_core)

# What the GUI decides without a window (simulation thread, timeline, actions, settings, layout, axes):
# its own library so that tests link it without ImGui or Vulkan.
file(GLOB gui_core_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gui/core/*.cpp)
add_library(vbd_gui_core STATIC ${gui_core_srcs})
target_link_libraries(vbd_gui_core PUBLIC vbd_engine nlohmann_json::nlohmann_json)
target_include_directories(vbd_gui_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(vbd_gui_core PRIVATE ${VBD_WARNINGS})
target_compile_definitions(vbd_gui_core PRIVATE VBD_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
if(VBD_BUILD_BENCH)
  # The simulation thread's host work per frame (tests/bench/app: it needs vbd_gui_core, which the engine's
  # benchmarks in tests/bench do not link). Run by hand, never in ctest.
  find_package(benchmark REQUIRED)
  add_executable(bench_snapshot ${PROJECT_SOURCE_DIR}/tests/bench/app/bench_snapshot.cpp)
  target_link_libraries(bench_snapshot PRIVATE vbd_gui_core benchmark::benchmark)
  target_compile_options(bench_snapshot PRIVATE ${VBD_WARNINGS})
endif()

file(GLOB gui_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gui/*.cpp)
target_sources(vbdlab PRIVATE ${gui_srcs})
target_link_libraries(vbdlab PRIVATE vbd_gui_core vbd_render imgui glfw)
target_compile_definitions(vbdlab PRIVATE VBD_HAVE_GUI=1)

if(VBD_BUILD_TESTS)
  enable_testing()  # app/ is added before the top level enables testing
  find_package(GTest REQUIRED)
  include(GoogleTest)
  find_program(XVFB_RUN xvfb-run)
  file(GLOB render_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/render/test_*.cpp
                                           ${PROJECT_SOURCE_DIR}/tests/app/test_*.cpp)
  foreach(f ${render_tests})
    get_filename_component(name ${f} NAME_WE)
    add_executable(${name} ${f})
    target_link_libraries(${name} PRIVATE vbd_gui_core vbd_render GTest::gtest GTest::gtest_main)
    target_compile_options(${name} PRIVATE ${VBD_WARNINGS})
    target_compile_definitions(${name} PRIVATE VBD_BINARY_DIR="${PROJECT_BINARY_DIR}"
                                               VBDLAB_EXE="$<TARGET_FILE:vbdlab>"
                                               XVFB_RUN="${XVFB_RUN}")
    if(f MATCHES "/tests/app/")
      add_dependencies(${name} vbdlab)  # the smoke test runs the binary
    endif()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS render ENVIRONMENT VBD_VALIDATION=1)
  endforeach()
  # The one test of an ImGui-drawing piece: it runs Dear ImGui without a window or renderer.
  target_sources(test_gui_fit_text PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/gui/fit_text.cpp)
  target_link_libraries(test_gui_fit_text PRIVATE imgui)
endif()
