// Loading the YAML of a suite with bounds on what yaml-cpp may consume. Private to the suite
// loader.
//
// Suites are edited by hand and garbled by merges, and Debian 12's yaml-cpp 0.7.0 has a bug that
// such text reaches: its LoadAll() never ends on a stray ',' outside a flow collection (",",
// "# c\n,", ", x: 1"): the parser emits an empty document without consuming the token, forever,
// allocating about a gigabyte per second (yaml-cpp issue 1040, fixed after 0.7.0). So the loader
// never calls LoadAll(). It first streams the text's events through a guard that stops at the
// first of:
//   - a second document (a suite is one document); when it starts where the previous one started,
//     the parser is stuck on a token it cannot step over, reported as a syntax error there;
//   - collections nested deeper than kMaxSuiteYamlNesting;
//   - more than kMaxSuiteYamlNodes nodes, counting each alias (*name) as a copy of the node it
//     refers to, so that aliases of aliases cannot multiply the work of the checks that follow;
//   - an alias inside the node it refers to (a cycle);
// and only then lets YAML::Load() build the first document's nodes. Before any of that, the text
// must be at most kMaxSuiteBytes of UTF-8 without control characters.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fprev::suite_detail {

struct YamlProblem {
  int line = 0;  // 1-based; 0: the whole text
  int column = 0;
  std::string message;
};

struct BoundedYaml {
  std::optional<YAML::Node> root;     // the first document, unless the text was refused
  std::vector<YamlProblem> problems;  // refusals, and a second document
};

BoundedYaml load_bounded_yaml(std::string_view text);

}  // namespace fprev::suite_detail
