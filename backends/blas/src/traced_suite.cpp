// A trace becomes a suite of the blas backend (fprev/blas/trace.hpp, docs/trace.md): each distinct
// call as the case the backend reveals (CBLAS row-major calls as the column-major call the library
// runs), its instance pinned to the library, thread count and forced kernel family the program ran
// with, the calls' counts and shapes as comments and their call sites as the case's `call_sites`.
#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "fprev/blas/kernel_family.hpp"
#include "fprev/blas/trace.hpp"

namespace fprev::blas {
namespace {

constexpr std::size_t kMaxSiteCharacters = 400;  // per call site written into a suite
constexpr std::size_t kMaxSitesPerCase = 4;
constexpr std::size_t kMaxCallsCommented = 4;    // distinct calls described above one case

// The `library` setting that opens the library the program used.
std::string library_setting(const TracedLibrary& library) {
  if (library.kind == "openblas") return "openblas";
  if (library.kind == "blis") return "blis";
  if (library.file.find("/blas/libblas.so") != std::string::npos) return "netlib";
  return library.file;
}

// OPENBLAS_CORETYPE as the `kernel` setting spells it; "" when not set or not a family we know.
std::string forced_family(const TracedLibrary& library) {
  if (library.coretype.empty()) return "";
  const KernelFamily* family = family_of_openblas_core(library.coretype);
  return family != nullptr ? std::string(family->name) : "";
}

std::string lower_safe(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) c = '_';
  }
  return text;
}

char flipped(char trans) { return trans == 'N' ? 'T' : 'N'; }
// Real data: a conjugate transpose is a transpose, a conjugate without transpose none.
char real_trans(char trans) { return trans == 'C' ? 'T' : (trans == 'R' ? 'N' : trans); }

std::string mask_offsets(std::uint64_t mask) {
  std::string text;
  for (int b = 0; b < 64; ++b)
    if ((mask >> b & 1u) != 0) text += (text.empty() ? "" : ",") + std::to_string(b);
  return text.empty() ? "-" : text;
}

// How the program made the call, for the comment above its case.
std::string call_text(const TracedCall& c) {
  std::ostringstream out;
  out << c.routine();
  if (c.cblas && c.op != "dot") out << (c.row_major ? " RowMajor" : " ColMajor");
  if (c.op == "dot") {
    out << " n " << c.n << ", incx " << c.inc_x << ", incy " << c.inc_y << "; x at byte offset "
        << mask_offsets(c.alignment[0]) << ", y at " << mask_offsets(c.alignment[1]) << " mod 64";
  } else if (c.op == "gemv") {
    out << " trans " << c.trans_a << ", m " << c.m << ", n " << c.n << ", lda " << c.ld_a << ", incx " << c.inc_x
        << ", incy " << c.inc_y << ", alpha " << (c.alpha_one ? "1" : "not 1") << ", beta "
        << (c.beta == 0 ? "0" : c.beta == 1 ? "1" : "not 0 or 1") << "; A at byte offset "
        << mask_offsets(c.alignment[0]) << ", x at " << mask_offsets(c.alignment[1]) << ", y at "
        << mask_offsets(c.alignment[2]) << " mod 64";
  } else {
    out << " " << c.trans_a << c.trans_b << ", m " << c.m << ", n " << c.n << ", k " << c.k << ", lda " << c.ld_a
        << ", ldb " << c.ld_b << ", ldc " << c.ld_c << ", alpha " << (c.alpha_one ? "1" : "not 1") << ", beta "
        << (c.beta == 0 ? "0" : c.beta == 1 ? "1" : "not 0 or 1") << "; A at byte offset "
        << mask_offsets(c.alignment[0]) << ", B at " << mask_offsets(c.alignment[1]) << ", C at "
        << mask_offsets(c.alignment[2]) << " mod 64";
  }
  out << "; " << c.count << (c.count == 1 ? " call" : " calls");
  return out.str();
}

// The blas backend's case for a call, or why it has none.
bool traced_case_params(const TracedCall& c, Params& params, std::string& why_not) {
  params = {{"op", c.op}, {"dtype", c.dtype}};
  if (c.op == "dot") {
    if (c.n < 1) return why_not = "n < 1: nothing summed", false;
    params["n"] = std::to_string(c.n);
    return true;
  }
  if (c.op == "gemv") {
    std::int64_t m = c.m, n = c.n;
    char trans = real_trans(c.trans_a);
    if (trans != 'N' && trans != 'T') return why_not = std::string("transpose '") + c.trans_a + "'", false;
    if (c.row_major) std::swap(m, n), trans = flipped(trans);  // y = A x on row-major A is A^T's column-major call
    if (m < 1 || n < 1) return why_not = "an empty matrix", false;
    params.insert({{"trans", std::string(1, trans)}, {"beta", c.beta == 0 ? "0" : "1"},
                   {"m", std::to_string(m)}, {"n", std::to_string(n)}});
    return true;
  }
  std::int64_t m = c.m, n = c.n;
  char ta = real_trans(c.trans_a), tb = real_trans(c.trans_b);
  if ((ta != 'N' && ta != 'T') || (tb != 'N' && tb != 'T'))
    return why_not = std::string("transposes '") + c.trans_a + c.trans_b + "'", false;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the call the library makes.
  if (c.row_major) std::swap(m, n), std::swap(ta, tb);
  if (m < 1 || n < 1) return why_not = "an empty C", false;
  if (c.k < 1) return why_not = "k < 1: no products summed", false;
  params.insert({{"trans", std::string{ta, tb}}, {"beta", c.beta == 0 ? "0" : "1"}, {"m", std::to_string(m)},
                 {"n", std::to_string(n)}, {"k", std::to_string(c.k)}});
  return true;
}

std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A setting's value: plain when YAML reads it back as the same text, else quoted.
std::string yaml_scalar(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_./-") == std::string::npos;
  return plain ? text : yaml_quoted(text);
}

std::string shorter(const std::string& text) {
  return text.size() <= kMaxSiteCharacters ? text : text.substr(0, kMaxSiteCharacters - 3) + "...";
}

// One case entry, indented by `indent` spaces before its "- ".
void write_case(std::ostream& out, const TracedCase& c, const std::string& indent) {
  for (const std::string& comment : c.comments) out << indent << "# " << comment << "\n";
  const std::string body = indent + "  ";
  bool first = true;
  for (const char* key : {"op", "dtype", "trans", "beta", "m", "n", "k"}) {
    const auto value = c.params.find(key);
    if (value == c.params.end()) continue;
    out << (first ? indent + "- " : body) << key << ": " << value->second << "\n";
    first = false;
  }
  out << body << "backends: " << c.instance << "\n";
  if (!c.sites.empty()) {
    out << body << "call_sites:\n";
    for (const std::string& site : c.sites) out << body << "  - " << yaml_quoted(shorter(site)) << "\n";
  }
}

void write_instance(std::ostream& out, const std::string& name, const Params& settings, const std::string& indent) {
  out << indent << "- name: " << name << "\n" << indent << "  use: blas\n";
  for (const char* key : {"library", "threads", "kernel"}) {
    const auto value = settings.find(key);
    if (value != settings.end()) out << indent << "  " << key << ": " << yaml_scalar(value->second) << "\n";
  }
}

// The first line after `start` that begins a top-level key (column 1, not a comment or a list
// item), or lines.size().
std::size_t next_top_level(const std::vector<std::string>& lines, std::size_t start) {
  for (std::size_t i = start; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (!l.empty() && l[0] != ' ' && l[0] != '#' && l[0] != '-' && l[0] != '\t') return i;
  }
  return lines.size();
}

std::size_t top_level_key(const std::vector<std::string>& lines, const std::string& key) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind(key + ":", 0) == 0) return i;
  return lines.size();
}

// The indentation of the block's list items ("  " in "  - name: x").
std::string item_indent(const std::vector<std::string>& lines, std::size_t key_line, std::size_t end) {
  for (std::size_t i = key_line + 1; i < end; ++i) {
    const std::size_t dash = lines[i].find_first_not_of(' ');
    if (dash != std::string::npos && lines[i][dash] == '-') return lines[i].substr(0, dash);
  }
  return "  ";
}

bool same_setting(const Params& a, const Params& b, const std::string& key, const std::string& absent) {
  const auto x = a.find(key);
  const auto y = b.find(key);
  return (x == a.end() ? absent : x->second) == (y == b.end() ? absent : y->second);
}

bool same_case(const Params& existing, const Params& traced) {
  for (const auto& [key, absent] : std::vector<std::pair<std::string, std::string>>{
           {"op", ""}, {"dtype", "float32"}, {"n", ""}, {"m", ""}, {"k", ""}, {"beta", "0"}})
    if (!same_setting(existing, traced, key, absent)) return false;
  const std::string op = traced.at("op");
  return op == "dot" || same_setting(existing, traced, "trans", op == "gemv" ? "N" : "NN");
}

}  // namespace

TracedCases traced_cases(const Trace& trace, const TracedSuiteOptions& options) {
  TracedCases result;
  std::map<std::string, std::uint64_t> left_out;  // reason -> calls
  // Distinct calls that give the same case (other strides, leading dimensions, CBLAS or Fortran)
  // are one case: the backend reveals it with its own layout, at every offset.
  std::map<std::tuple<std::string, Params>, TracedCase> by_case;
  for (const TracedCall& c : trace.calls) {
    if (c.library < 0 || static_cast<std::size_t>(c.library) >= trace.libraries.size()) {
      left_out[c.routine() + ": the library that served it is unknown"] += c.count;
      continue;
    }
    Params params;
    std::string why_not;
    if (!traced_case_params(c, params, why_not)) {
      left_out[c.routine() + ": " + why_not] += c.count;
      continue;
    }
    const TracedLibrary& library = trace.libraries[static_cast<std::size_t>(c.library)];
    Params settings{{"library", library_setting(library)},
                    {"threads", std::to_string(c.threads > 0 ? c.threads : 1)}};
    const std::string family = forced_family(library);
    if (!family.empty()) settings["kernel"] = family;
    const std::string library_name = library.kind == "other" ? (settings["library"] == "netlib" ? "netlib" : "blas")
                                                             : library.kind;
    const std::string instance = library_name + (family.empty() ? "" : "-" + lower_safe(family)) + "-t" +
                                 settings["threads"];
    TracedCase& traced = by_case[{instance, params}];
    traced.instance = instance;
    traced.settings = settings;
    traced.params = params;
    traced.count += c.count;
    if (++traced.distinct_calls > kMaxCallsCommented) continue;  // counted above, described no further
    traced.comments.push_back(call_text(c));
    if (c.row_major && c.op != "dot")
      traced.comments.push_back("row-major: gated as the column-major call the library makes (the transpose of C)");
    if (c.op != "dot" && c.beta == 2) traced.comments.push_back("beta is neither 0 nor 1: gated with beta 1 (the old values are a summand either way)");
    if (c.op != "dot" && !c.alpha_one) traced.comments.push_back("alpha is not 1: gated with alpha 1");
    if ((c.op != "gemm") && (c.inc_x != 1 || c.inc_y != 1))
      traced.comments.push_back("strided vectors: gated with unit strides");
    for (const std::string& site : c.sites)
      if (traced.sites.size() < kMaxSitesPerCase &&
          std::find(traced.sites.begin(), traced.sites.end(), site) == traced.sites.end())
        traced.sites.push_back(site);
  }
  for (auto& [key, traced] : by_case) {
    if (traced.distinct_calls > kMaxCallsCommented)
      traced.comments.push_back("and " + std::to_string(traced.distinct_calls - kMaxCallsCommented) +
                                " more distinct calls (other leading dimensions, strides or interfaces)");
    if (traced.count < options.min_count) {
      left_out["fewer than " + std::to_string(options.min_count) + " calls (--min-count)"] += traced.count;
      continue;
    }
    result.cases.push_back(std::move(traced));
  }
  std::stable_sort(result.cases.begin(), result.cases.end(),
                   [](const TracedCase& a, const TracedCase& b) { return a.count > b.count; });
  if (options.top != 0 && result.cases.size() > options.top) {
    std::uint64_t calls = 0;
    for (std::size_t i = options.top; i < result.cases.size(); ++i) calls += result.cases[i].count;
    left_out["beyond the " + std::to_string(options.top) + " most frequent (--top)"] += calls;
    result.cases.resize(options.top);
  }
  for (const auto& [reason, calls] : left_out)
    result.not_gated.push_back(reason + ": " + std::to_string(calls) + (calls == 1 ? " call" : " calls"));
  for (const auto& [routine, calls] : trace.other_calls)
    result.not_gated.push_back(routine + ": " + std::to_string(calls) + (calls == 1 ? " call" : " calls") +
                               " (not a kind the gate reveals)");
  if (trace.unrecorded != 0)
    result.not_gated.push_back("calls beyond the interposer's 1024 distinct calls: " + std::to_string(trace.unrecorded));
  for (const TracedLibrary& library : trace.libraries) {
    std::string line = "library " + library.file + (library.config.empty() ? "" : " (" + library.config + ")");
    if (!library.core.empty()) line += ", kernel family " + library.core;
    if (!library.coretype.empty())
      line += forced_family(library).empty() ? ", OPENBLAS_CORETYPE=" + library.coretype + " (not a family the backend forces)"
                                             : ", forced with OPENBLAS_CORETYPE=" + library.coretype;
    else if (library.kind == "openblas")
      line += " chosen by the library: add `kernel: " +
              (family_of_openblas_core(library.core) != nullptr ? std::string(family_of_openblas_core(library.core)->name)
                                                                : library.core) +
              "` to gate that family on any runner";
    result.header.push_back(line);
  }
  return result;
}

std::string traced_suite_text(const TracedCases& traced, const TracedSuiteOptions& options) {
  std::ostringstream out;
  std::uint64_t calls = 0;
  for (const TracedCase& c : traced.cases) calls += c.count;
  out << "# Written by `fprev-golden trace` (docs/trace.md) from the BLAS calls of\n#   " << options.command << "\n"
      << "# (" << options.exit_status << "): " << traced.cases.size() << " cases for " << calls
      << (calls == 1 ? " call" : " calls") << ". Each case is one distinct call, gated the way the program\n"
      << "# ran it; its comments say how it was called and call_sites where.\n";
  for (const std::string& line : traced.header) out << "# " << line << "\n";
  if (!traced.not_gated.empty()) {
    out << "# Not gated:\n";
    for (const std::string& line : traced.not_gated) out << "#   " << line << "\n";
  }
  out << "suite: " << options.suite_name << "\n"
      << "description: BLAS calls of " << yaml_quoted(options.command) << ", traced\n"
      << "backends:\n";
  std::vector<std::string> written;
  for (const TracedCase& c : traced.cases) {
    if (std::find(written.begin(), written.end(), c.instance) != written.end()) continue;
    written.push_back(c.instance);
    write_instance(out, c.instance, c.settings, "  ");
  }
  out << "cases:\n";
  for (const TracedCase& c : traced.cases) write_case(out, c, "  ");
  return out.str();
}

std::string merge_traced_cases(const std::string& existing_text, const Suite& existing, const TracedCases& traced,
                               const BackendRegistry& registry, std::size_t& added) {
  std::vector<std::string> lines;
  {
    std::istringstream in(existing_text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  const std::size_t backends_line = top_level_key(lines, "backends");
  const std::size_t cases_line = top_level_key(lines, "cases");
  for (const std::size_t key_line : {backends_line, cases_line})
    if (key_line == lines.size() || lines[key_line].find_first_not_of(' ', lines[key_line].find(':') + 1) != std::string::npos)
      throw ConfigError("", existing.file + ": --merge adds to a suite whose 'backends' and 'cases' are block lists "
                                            "(each item on its own '- ' line); this one is written otherwise");

  // Instances: an existing blas instance with the same settings takes the traced cases.
  std::map<std::string, std::string> instance_of;  // traced instance -> name in the merged suite
  std::ostringstream new_instances, new_cases;
  const std::string backend_indent =
      item_indent(lines, backends_line, next_top_level(lines, backends_line + 1));
  const std::string case_indent = item_indent(lines, cases_line, next_top_level(lines, cases_line + 1));
  for (const TracedCase& c : traced.cases) {
    if (instance_of.count(c.instance) != 0) continue;
    std::string name;
    for (const BackendInstanceSpec& spec : existing.backends)
      if (spec.use == "blas" && same_setting(spec.settings, c.settings, "library", "openblas") &&
          same_setting(spec.settings, c.settings, "threads", "1") &&
          same_setting(spec.settings, c.settings, "kernel", ""))
        name = spec.name;
    if (name.empty()) {
      name = c.instance;
      for (int suffix = 2; existing.find_backend(name) != nullptr; ++suffix)
        name = c.instance + "-" + std::to_string(suffix);
      write_instance(new_instances, name, c.settings, backend_indent);
    }
    instance_of[c.instance] = name;
  }
  // New lines go after a block's last item (before the blank lines that end it).
  const auto insert_after_block = [&lines](std::size_t key_line, const std::string& text) {
    if (text.empty()) return;
    std::size_t end = next_top_level(lines, key_line + 1);
    while (end > key_line + 1 && (lines[end - 1].find_first_not_of(' ') == std::string::npos)) --end;
    std::vector<std::string> inserted;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) inserted.push_back(line);
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(end), inserted.begin(), inserted.end());
  };
  const auto joined = [&lines] {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
  };
  // The suite with the new instances: the entries without `backends:` apply to them too, so the
  // cases it then has on each instance are the ones not to add again.
  insert_after_block(backends_line, new_instances.str());
  const Suite with_instances = parse_suite(joined(), existing.file, registry);
  added = 0;
  for (const TracedCase& c : traced.cases) {
    const std::string& name = instance_of[c.instance];
    const bool present = std::any_of(with_instances.cases.begin(), with_instances.cases.end(), [&](const SuiteCase& s) {
      return s.backend_instance == name && same_case(s.params, c.params);
    });
    if (present) continue;
    TracedCase renamed = c;
    renamed.instance = name;
    write_case(new_cases, renamed, case_indent);
    ++added;
  }
  insert_after_block(top_level_key(lines, "cases"), new_cases.str());
  return joined();
}

}  // namespace fprev::blas
