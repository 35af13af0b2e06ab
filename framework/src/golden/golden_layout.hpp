// The directory layout goldens and pending results share (<root>/<platform>/<suite>/<backend>/
// <case><extension>): listing the files of one extension, and tidying up after a removal.
// Private to the golden layer.
#pragma once

#include <filesystem>
#include <string_view>

#include "fprev/golden.hpp"

namespace fprev::detail {

// Every regular file under `root` whose name ends with `extension`: those at
// <platform>/<suite>/<backend>/<case><extension> or, overlays, at
// <platform>/<suite>/<backend>/<library key>/<case><extension> with safe components as locations, the others as
// stray, both sorted by path. Hidden names (writers' temporaries, hidden folders) are skipped. A
// missing root lists nothing; a directory that cannot be read throws GoldenIoError.
GoldenListing list_layout(const std::filesystem::path& root, std::string_view extension);

// Removes the directories from `directory` up to, but not including, `root` while they are empty
// (best effort: the first one that is not empty or cannot be removed stops it). Does nothing
// unless `directory` is below `root`.
void remove_empty_directories(const std::filesystem::path& directory, const std::filesystem::path& root);

}  // namespace fprev::detail
