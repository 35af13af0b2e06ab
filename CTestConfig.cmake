# `ctest -D Experimental` (or Nightly/Continuous) submits to the CDash server given by the cache
# variable FPREV_CDASH_SUBMIT_URL, e.g.
#   cmake -DFPREV_CDASH_SUBMIT_URL="https://cdash.example.org/submit.php?project=fprev-golden" ...
set(CTEST_PROJECT_NAME "fprev-golden")
set(CTEST_NIGHTLY_START_TIME "01:00:00 UTC")
set(FPREV_CDASH_SUBMIT_URL "" CACHE STRING "CDash submit URL for ctest -D Experimental")
if(FPREV_CDASH_SUBMIT_URL)
  set(CTEST_SUBMIT_URL "${FPREV_CDASH_SUBMIT_URL}")
endif()
