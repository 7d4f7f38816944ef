"""setuptools back-end of `pip install .`: the extension cubekit._native is built by the
project's CMake (target cubekit_python), the pure-Python files come from python/cubekit."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        # CUBEKIT_BUILD_DIR: an existing, configured CMake build folder of this checkout to build
        # in (saves compiling the library again); by default a fresh one under build_temp.
        build_dir = Path(os.environ.get("CUBEKIT_BUILD_DIR") or Path(self.build_temp) / "cmake")
        build_dir = build_dir.resolve()
        configure = ["cmake", "-S", str(SOURCE), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release", "-DCUBEKIT_TESTS=OFF", "-DCUBEKIT_BENCH=OFF",
                     f"-DPython_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        if "CUBEKIT_BUILD_DIR" not in os.environ:  # an existing build folder keeps its settings
            subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "cubekit_python"])
        built = next((build_dir / "python" / "cubekit").glob("_native*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    packages=find_packages(where="python", include=["cubekit", "cubekit.*"]),
    package_dir={"": "python"},
    ext_modules=[Extension("cubekit._native", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
