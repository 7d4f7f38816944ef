// A tool started by an MPI launcher (mpirun, srun) runs as one rank of a job (docs/mpi.md): the
// tools that spread their work over the ranks run on every rank, the others on rank 0 alone;
// at the end all ranks agree on the exit code. Started alone, or built without MPI, a tool runs
// as it always did and MPI is not initialised.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#if CUBEKIT_WITH_MPI
#include <memory>

#include "cubekit/mpi.hpp"
#include "run_guarded.hpp"
#endif

namespace cubekit::cli {

// The tools whose work is spread over the ranks of a job (src/tools/job.cpp).
constexpr std::string_view kJobTools[] = {"cube_dump", "cube_mean",        "cube_merge",
                                          "cube_stat", "cube_pop_metrics", "cube_model"};

template <class Main>
int run_in_job([[maybe_unused]] const std::string& tool, [[maybe_unused]] int& argc,
               [[maybe_unused]] char**& argv, Main&& main) {
#if CUBEKIT_WITH_MPI
  if (mpi::launched_by_launcher()) {
    // A job that cannot start (e.g. the MPI module is missing) ends with one line, like a tool.
    std::unique_ptr<mpi::Job> started;
    if (run_guarded(tool.c_str(), [&] {
          started = std::make_unique<mpi::Job>(&argc, &argv);
          return 0;
        }) != 0)
      return 1;
    mpi::Job& job = *started;
    const bool spread =
        std::find(std::begin(kJobTools), std::end(kJobTools), tool) != std::end(kJobTools);
    int rc = 0;
    if (spread || job.root()) {
      try {
        rc = main();
      } catch (const mpi::JobFailed&) {
        return 1;  // agreed: rank 0 has said why
      }
    }
    return job.finish(rc);
  }
#endif
  return main();
}

}  // namespace cubekit::cli
