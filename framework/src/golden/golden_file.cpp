// Golden files on disk: atomic writes, re-baselining without churn, the directory layout.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>

#include "fprev/golden.hpp"
#include "fprev/pending.hpp"
#include "golden/golden_layout.hpp"
#include "text/text_checks.hpp"

namespace fprev {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kGoldenExtension = ".golden";

std::string system_error_text(int error) { return std::strerror(error); }

// A name no other writer (thread or process) picks: hidden, next to the target, with the pid, a
// per-process counter and random bits.
fs::path temporary_name(const fs::path& target) {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint64_t salt = [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  std::ostringstream name;
  name << '.' << target.filename().string() << ".tmp-" << ::getpid() << '-' << std::hex
       << (salt ^ static_cast<std::uint64_t>(
                      std::chrono::steady_clock::now().time_since_epoch().count()))
       << '-' << counter.fetch_add(1);
  return target.parent_path() / name.str();
}

void write_all(int fd, std::string_view data, const fs::path& temp) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw GoldenIoError("cannot write " + temp.string() + ": " + system_error_text(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

// Makes the rename itself durable. Best effort: some file systems refuse fsync on directories.
void sync_directory(const fs::path& directory) {
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Removes the temporary file unless released (the rename succeeded).
class TemporaryFile {
 public:
  explicit TemporaryFile(fs::path path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) ::unlink(path_.c_str());
  }
  void set_fd(int fd) { fd_ = fd; }
  void close_fd() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      throw GoldenIoError("cannot write " + path_.string() + ": " + system_error_text(errno));
  }
  void release() { released_ = true; }

 private:
  fs::path path_;
  int fd_ = -1;
  bool released_ = false;
};

// A writer's temporary left by an interrupted run (killed, power lost): `.NAME.tmp-PID-...` next
// to `path`, whose process no longer exists. Removed before a new write; a live writer's is kept.
void remove_stale_temporaries(const fs::path& path) {
  const std::string prefix = "." + path.filename().string() + ".tmp-";
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(path.parent_path().empty() ? "." : path.parent_path(), error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string rest = name.substr(prefix.size());
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos ||
        !std::all_of(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(dash), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink(entry.path().c_str());
  }
}

// What the reader accepts, checked on the bytes written before they replace anything: a writer
// never leaves a golden its own reader refuses (a line over the limit, say).
void read_back(const fs::path& temp, const fs::path& path) {
  try {
    (void)read_golden(temp);
  } catch (const std::exception& e) {
    throw GoldenIoError("refused to write " + path.string() + ": the file written would not read back (" +
                        e.what() + ")");
  }
}

// Writes a golden (or a pending result) whole or not at all, read back before it replaces anything.
void write_golden_atomically(const fs::path& path, std::string_view text) {
  const fs::path directory = path.parent_path();
  if (!directory.empty()) {
    std::error_code error;
    fs::create_directories(directory, error);
    if (error)
      throw GoldenIoError("cannot create directory " + directory.string() + ": " + error.message());
  }
  remove_stale_temporaries(path);
  // The file replaced keeps its permissions (a golden made read-only, or group-writable, stays so).
  struct stat old {};
  const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  const fs::path temp = temporary_name(path);
  TemporaryFile guard(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    guard.release();  // nothing was created
    throw GoldenIoError("cannot create " + temp.string() + ": " + system_error_text(errno));
  }
  guard.set_fd(fd);
  if (replacing) (void)::fchmod(fd, old.st_mode & 07777);
  write_all(fd, text, temp);
  if (::fsync(fd) != 0)
    throw GoldenIoError("cannot sync " + temp.string() + ": " + system_error_text(errno));
  guard.close_fd();
  read_back(temp, path);
  if (::rename(temp.c_str(), path.c_str()) != 0)
    throw GoldenIoError("cannot rename " + temp.string() + " to " + path.string() + ": " +
                        system_error_text(errno));
  guard.release();
  sync_directory(directory);
}

// The whole file, or a refusal of one larger than a golden may be (never read into memory).
std::string read_text(const fs::path& path) {
  detail::BoundedRead read = detail::read_file_bounded(path, kMaxGoldenBytes, true);
  switch (read.status) {
    case detail::ReadStatus::ok:
      return std::move(read.text);
    case detail::ReadStatus::too_large:
      throw GoldenParseError(path.string(), 0,
                             "the file is larger than " +
                                 detail::with_thousands_separators(kMaxGoldenBytes) +
                                 " bytes, the most a golden may have");
    case detail::ReadStatus::cannot_open:
    case detail::ReadStatus::read_failed:
    case detail::ReadStatus::not_regular:
      break;
  }
  throw GoldenIoError("cannot read " + path.string() + ": " + read.error);
}

}  // namespace

Golden read_golden(const fs::path& path, std::size_t case_leaves) {
  return parse_golden_text(read_text(path), path.string(), case_leaves);
}

Golden read_golden(const fs::path& path, std::string& digest, std::size_t case_leaves) {
  const std::string text = read_text(path);
  digest = golden_text_digest(text);
  return parse_golden_text(text, path.string(), case_leaves);
}

void write_golden_file(const fs::path& path, const Golden& golden) {
  write_golden_atomically(path, write_golden_text(golden));
}

std::string_view to_string(StoreOutcome outcome) {
  switch (outcome) {
    case StoreOutcome::created: return "created";
    case StoreOutcome::unchanged: return "unchanged";
    case StoreOutcome::changed: return "changed";
    case StoreOutcome::repaired: return "repaired";
  }
  return "unknown";
}

StoreOutcome store_golden(const fs::path& path, const Golden& golden) {
  const std::string text = write_golden_text(golden);  // validates before touching anything
  std::error_code error;
  const bool exists = fs::exists(path, error);
  StoreOutcome outcome = StoreOutcome::created;
  if (exists) {
    try {
      // Bounded by the new golden's size: an old tree of another size is not the same result,
      // and is never expanded (a few lines can describe millions of leaves).
      const std::size_t leaves = golden.map.classes.empty() ? 0 : golden.map.classes.front().tree.leaf_count();
      const Golden old = read_golden(path, leaves);
      if (same_result(old, golden)) return StoreOutcome::unchanged;
      outcome = StoreOutcome::changed;
    } catch (const GoldenParseError&) {
      outcome = StoreOutcome::repaired;
    }
  }
  write_golden_atomically(path, text);
  return outcome;
}

bool is_safe_component(std::string_view component) {
  if (component.empty() || component.size() > 128) return false;
  if (component.front() == '.' || component.front() == '-') return false;
  return std::all_of(component.begin(), component.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '-';
  });
}

fs::path golden_path(const fs::path& root, std::string_view suite, std::string_view backend,
                     std::string_view platform_key, std::string_view case_id, std::string_view library_key) {
  const std::pair<std::string_view, std::string_view> components[] = {
      {"platform key", platform_key}, {"suite", suite}, {"backend", backend}, {"case id", case_id}};
  for (const auto& [what, value] : components)
    if (!is_safe_component(value))
      throw std::invalid_argument(std::string(what) + " '" + std::string(value) +
                                  "' cannot name a golden file: use 1..128 of [A-Za-z0-9._+-], "
                                  "not starting with '.' or '-'");
  if (!library_key.empty() && !is_safe_component(library_key))
    throw std::invalid_argument("library key '" + std::string(library_key) + "' cannot name a folder");
  fs::path folder = root / std::string(platform_key) / std::string(suite) / std::string(backend);
  if (!library_key.empty()) folder /= std::string(library_key);
  return folder / (std::string(case_id) + std::string(kGoldenExtension));
}

GoldenListing list_goldens(const fs::path& root) { return detail::list_layout(root, kGoldenExtension); }

namespace detail {

GoldenListing list_layout(const fs::path& root, std::string_view extension) {
  GoldenListing listing;
  std::error_code error;
  if (!fs::is_directory(root, error)) return listing;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    if (!name.empty() && name.front() == '.') {  // writers' temporaries, hidden folders
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !name.ends_with(extension)) continue;
    const fs::path relative = path.lexically_relative(root);
    std::vector<std::string> parts;
    for (const auto& part : relative) parts.push_back(part.string());
    const std::string case_id =
        parts.empty() ? std::string() : parts.back().substr(0, parts.back().size() - extension.size());
    // 4 parts: a default golden; 5: an overlay, in its library's folder inside the backend's.
    if ((parts.size() == 4 || parts.size() == 5) && is_safe_component(parts[0]) &&
        is_safe_component(parts[1]) && is_safe_component(parts[2]) && is_safe_component(parts[3]) &&
        is_safe_component(case_id)) {
      listing.goldens.push_back(
          {path, parts[0], parts[1], parts[2], case_id, parts.size() == 5 ? parts[3] : std::string()});
    } else {
      listing.stray.push_back(path);
    }
  }
  if (error) throw GoldenIoError("cannot list " + root.string() + ": " + error.message());
  std::sort(listing.goldens.begin(), listing.goldens.end(),
            [](const GoldenLocation& a, const GoldenLocation& b) { return a.path < b.path; });
  std::sort(listing.stray.begin(), listing.stray.end());
  return listing;
}

void remove_empty_directories(const fs::path& directory, const fs::path& root) {
  const fs::path base = root.lexically_normal();
  for (fs::path dir = directory.lexically_normal(); dir.has_relative_path() && dir != base;
       dir = dir.parent_path()) {
    const fs::path relative = dir.lexically_relative(base);
    if (relative.empty() || *relative.begin() == "..") return;  // not below root
    std::error_code error;
    if (!fs::remove(dir, error) || error) return;  // not empty, or cannot be removed
  }
}

}  // namespace detail

std::string utc_timestamp_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  // SOURCE_DATE_EPOCH (reproducible-builds.org): a fixed time, so that two recordings of the same
  // goldens (a serial and a distributed run, two CI jobs) are byte for byte the same files.
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && *epoch != '\0') {
    char* end = nullptr;
    const long long seconds = std::strtoll(epoch, &end, 10);
    if (end != nullptr && *end == '\0' && seconds >= 0) now = static_cast<std::time_t>(seconds);
  }
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string golden_identity(const GoldenMetadata& meta) {
  std::string text = meta.library;
  if (!meta.library_version.empty()) text += " " + meta.library_version;
  if (!meta.library_configuration.empty()) text += " (" + meta.library_configuration + ")";
  return text;
}

}  // namespace fprev
