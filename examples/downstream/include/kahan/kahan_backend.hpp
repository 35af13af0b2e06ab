// The fprev-golden backend `kahan` of the example project: reveals the accumulation order of
// blocked_kahan_dot. Written against fprev-golden's public headers only.
#pragma once

#include <memory>

#include "fprev/backend.hpp"

namespace kahan {

std::unique_ptr<fprev::Backend> make_backend();

}  // namespace kahan
