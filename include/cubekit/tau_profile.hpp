// TAU profiles (TAU's text format: one `profile.N.C.T` file per node N, context C and thread
// T; one sub-directory `MULTI__<metric>` of such files per metric when several were measured)
// read into a report and written as .cubex (tau2cube, tools guide §1.5). docs/tau2cube.md
// describes the format as read and how it maps onto a report.
#pragma once

#include <cstddef>
#include <string>

namespace cubekit {

struct TauConversion {
  size_t files = 0, metrics = 0, user_events = 0, call_paths = 0, locations = 0;
};

struct TauConversionOptions {
  // One TAU_ATOMIC metric per TAU user event (CubeLib's tau2cube leaves them out).
  bool user_events = false;
};

// Reads the TAU profile at `profile` (a directory of profile files, or one profile file) and
// writes it to `path` (whole or not at all) in CubeLib 4.6's layout: one INTEGER metric per TAU
// metric and CALLS. Throws FormatError naming the file and line of a malformed profile, IoError
// when files cannot be read or written.
TauConversion convert_tau_profile(const std::string& profile, const std::string& path,
                                  const TauConversionOptions& options = {});

}  // namespace cubekit
