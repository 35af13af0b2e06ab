// The checks reveal(), verify() and confirm() share (entry_checks.hpp).
#include "entry_checks.hpp"

#include <algorithm>
#include <string>

namespace fprev::detail {

MaskScheme scheme_for(const TargetInfo& info) {
  if (info.n == 0)
    fail(Finding::unsupported, "the target has no summands (n = 0)", {}, std::nullopt,
         "an empty reduction: check the case's shape (n, k)");
  if (info.n > 0xfffffff0u)
    fail(Finding::unsupported, "n is too large (more than 2^32 summands)", {}, std::nullopt,
         "leaf indices are 32-bit");
  try {
    return choose_mask_scheme(info.traits, info.n);
  } catch (const MaskSchemeError& e) {
    fail(Finding::unsupported, e.what(), {}, std::nullopt,
         "the formats' range cannot mask this many summands; use a smaller case");
  }
}

void check_grid(const TargetInfo& info) {
  if (info.grid.rows == 0 || info.grid.columns == 0)
    fail(Finding::unsupported, "the target declares an empty output grid", {}, std::nullopt,
         "a target bug: a grid target has at least one row and one column");
}

void check_single_output_map(const TargetInfo& info, const OrderMap& map) {
  if (!info.grid.single() || !(map.grid == info.grid) || map.classes.size() != 1)
    fail(Finding::verification_failed,
         "a single-output target has a map of one class on a 1 x 1 grid; this map has " +
             std::to_string(map.classes.size()) + " classes on a " + std::to_string(map.grid.rows) +
             " x " + std::to_string(map.grid.columns) + " grid");
}

// The fused-node test on a single-output target: one output per input.
FusedTestRunner single_runner(ProbeSession& session) {
  return [&session](std::size_t inputs, const std::vector<double>& a, const std::vector<double>& b) {
    const std::vector<double> out = session.evaluate_values(inputs, a, b);
    std::vector<std::vector<double>> per_input(inputs);
    for (std::size_t k = 0; k < inputs; ++k) per_input[k].push_back(out[k]);
    return per_input;
  };
}

namespace {

// The fused-node test on one class of a grid target: the inputs go on the class's rows (cyclically,
// as many calls as needed), and every element of the class on those rows answers.
FusedTestRunner class_runner(ProbeSession& session, const std::vector<std::uint32_t>& element_class,
                             std::uint32_t id) {
  return [&session, &element_class, id](std::size_t inputs, const std::vector<double>& a,
                                        const std::vector<double>& b) {
    const TargetInfo& info = session.info();
    const std::size_t rows = info.grid.rows, columns = info.grid.columns, n = info.n;
    std::vector<std::size_t> class_rows;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < columns; ++c)
        if (element_class[r * columns + c] == id) {
          class_rows.push_back(r);
          break;
        }
    std::vector<std::vector<double>> per_input(inputs);
    std::vector<double> grid_a(rows * n, 0.0);
    for (std::size_t first = 0; first < inputs; first += class_rows.size()) {
      std::vector<std::size_t> input_of(rows, 0);
      for (std::size_t k = 0; k < class_rows.size(); ++k) {
        const std::size_t input = (first + k) % inputs;
        input_of[class_rows[k]] = input;
        std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(input * n), n,
                    grid_a.begin() + static_cast<std::ptrdiff_t>(class_rows[k] * n));
      }
      const std::vector<double> out = session.evaluate_value_grid(Placement::rows, rows, grid_a, b);
      for (std::size_t r : class_rows)
        for (std::size_t c = 0; c < columns; ++c)
          if (element_class[r * columns + c] == id) per_input[input_of[r]].push_back(out[r * columns + c]);
    }
    return per_input;
  };
}

}  // namespace

// The fused-node test of every class, on the class's own elements.
void check_fused_nodes_per_class(ProbeSession& session, const std::vector<std::uint32_t>& element_class,
                                 const std::function<const Tree&(std::uint32_t)>& tree_of,
                                 RevealStats& stats) {
  const std::size_t columns = session.info().grid.columns;
  std::vector<bool> tested;
  for (std::size_t e = 0; e < element_class.size(); ++e) {
    const std::uint32_t id = element_class[e];
    if (id >= tested.size()) tested.resize(id + 1, false);
    if (tested[id]) continue;
    tested[id] = true;
    check_fused_nodes(session.info(), tree_of(id), class_runner(session, element_class, id), stats,
                      " (output element (" + std::to_string(e / columns) + ", " +
                          std::to_string(e % columns) + ") and the other elements of its class)");
  }
}

}  // namespace fprev::detail
