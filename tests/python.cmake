# The Python package (python/): its unittest suite drives this build's kladder
# (KLADDER) on the default device at tiny sizes, about 10 s on PoCL with 2
# cores; then pip installs it offline into a temporary directory and imports
# it from there (skipped, 77, where pip or setuptools is absent). Included
# from tests/CMakeLists.txt; label python. The interpreter is the system's
# /usr/bin/python3 where there is one (scripts/setup.sh --tests installs pip and
# setuptools for it), else python3 on PATH (-DKL_PYTHON3=... for another).

find_program(KL_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(KL_PYTHON3 python3)
if(NOT KL_PYTHON3)
  message(STATUS "Python tests: off (no python3)")
  return()
endif()
set(KL_PY ${CMAKE_SOURCE_DIR}/python)

add_test(NAME python_unittest
         COMMAND ${KL_PYTHON3} -m unittest discover -v -s ${KL_PY}/tests)
add_test(NAME python_install
         COMMAND ${KL_PYTHON3} ${KL_PY}/tests/check_install.py ${KL_PY})
set_tests_properties(python_unittest python_install PROPERTIES
  LABELS python
  TIMEOUT 300
  ENVIRONMENT "KLADDER=$<TARGET_FILE:kladder-cli>;PYTHONPATH=${KL_PY};PYTHONDONTWRITEBYTECODE=1")
set_tests_properties(python_install PROPERTIES SKIP_RETURN_CODE 77)
