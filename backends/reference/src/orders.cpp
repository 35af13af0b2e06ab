// Names of the reference orders and the definition of the random tree.
#include <array>
#include <random>

#include "fprev/backends/reference.hpp"

namespace fprev::reference {
namespace {

struct OrderName {
  Order order;
  std::string_view name;
};

constexpr std::array<OrderName, 13> kOrderNames{{
    {Order::sequential, "sequential"},
    {Order::reverse, "reverse"},
    {Order::pairwise, "pairwise"},
    {Order::strided_pairwise, "strided_pairwise"},
    {Order::strided_sequential, "strided_sequential"},
    {Order::blocked, "blocked"},
    {Order::fused, "fused"},
    {Order::random_tree, "random_tree"},
    {Order::aligned_peel, "aligned_peel"},
    {Order::nondeterministic, "nondeterministic"},
    {Order::sorted_magnitude, "sorted_magnitude"},
    {Order::exact, "exact"},
    {Order::nan, "nan"},
}};

// Uniform in [0, bound): 128-bit multiply-shift (Lemire without the rejection step; the bias is
// below 2^-32 for every bound we use). Unlike std::uniform_int_distribution its result is the same
// with every standard library, which keeps random_tree portable (platform key "any").
std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(engine()) * bound) >> 64);
}

}  // namespace

std::string_view to_string(Order order) {
  for (const auto& entry : kOrderNames)
    if (entry.order == order) return entry.name;
  return "unknown";
}

std::optional<Order> parse_order(std::string_view name) {
  for (const auto& entry : kOrderNames)
    if (entry.name == name) return entry.order;
  return std::nullopt;
}

const std::vector<Order>& all_orders() {
  static const std::vector<Order> orders = [] {
    std::vector<Order> out;
    for (const auto& entry : kOrderNames) out.push_back(entry.order);
    return out;
  }();
  return orders;
}

std::string order_names() {
  std::string out;
  for (const auto& entry : kOrderNames) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

bool has_summation_tree(Order order) {
  switch (order) {
    case Order::nondeterministic:
    case Order::sorted_magnitude:
    case Order::exact:
    case Order::nan:
      return false;
    default:
      return true;
  }
}

std::vector<Merge> random_tree_merges(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::uint32_t> live(n);
  for (std::size_t k = 0; k < n; ++k) live[k] = static_cast<std::uint32_t>(k);
  std::vector<Merge> merges;
  merges.reserve(n == 0 ? 0 : n - 1);
  while (live.size() > 1) {
    const std::uint64_t size = live.size();
    const std::uint64_t a = uniform_below(engine, size);
    std::uint64_t b = uniform_below(engine, size - 1);
    if (b >= a) ++b;  // a second, distinct live node
    merges.push_back({live[a], live[b]});
    live[b] = live.back();
    live.pop_back();
  }
  return merges;
}

}  // namespace fprev::reference
