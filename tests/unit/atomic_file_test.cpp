// AtomicFile (cubekit/atomic_file.hpp): the target appears, whole, only at commit(); an
// uncommitted file leaves the folder as it was, and errors name the file and the reason.
#include "cubekit/atomic_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;
using test::listing;
using test::read_file;

// More than the file's 64 KiB buffer, so that bytes reach the temporary before commit().
std::string large_text() {
  std::string text;
  for (int i = 0; text.size() < 200000; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

TEST(AtomicFile, CommitMakesTheFileWithEverythingWritten) {
  test::TempDir dir("atomic-file");
  const std::string path = (dir.path() / "out.txt").string();
  const std::string text = large_text();
  AtomicFile file(path);
  EXPECT_EQ(file.path(), path);
  file.write(text);
  file.stream() << "tail " << 42 << '\n';
  EXPECT_FALSE(fs::exists(path)) << "the target must not appear before commit()";
  file.commit();
  EXPECT_EQ(read_file(path), text + "tail 42\n");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, CommitReplacesThePreviousFile) {
  test::TempDir dir("atomic-file");
  const std::string path = dir.write("out.txt", "previous\n");
  AtomicFile file(path);
  file.write("new\n");
  file.commit();
  EXPECT_EQ(read_file(path), "new\n");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, WithoutCommitThePreviousFileStaysAndNothingIsLeft) {
  test::TempDir dir("atomic-file");
  const std::string path = dir.write("out.txt", "previous\n");
  {
    AtomicFile file(path);
    file.write(large_text());
    file.flush();
  }
  EXPECT_EQ(read_file(path), "previous\n");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
  {
    AtomicFile file((dir.path() / "new.txt").string());
    file.write("never committed");
  }
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, MissingFolderNamesThePathAndTheReason) {
  test::TempDir dir("atomic-file");
  const std::string path = (dir.path() / "missing" / "out.txt").string();
  try {
    AtomicFile file(path);
    ADD_FAILURE() << "no exception for a file in a missing folder";
  } catch (const IoError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
  }
  EXPECT_TRUE(listing(dir.path()).empty());
}

// Sets the process's umask for a scope.
class UmaskFor {
 public:
  explicit UmaskFor(mode_t mask) : saved_(::umask(mask)) {}
  ~UmaskFor() { ::umask(saved_); }

 private:
  mode_t saved_;
};

// The mode is the one creating the file would give (0666 less the umask), whatever the
// previous file's was.
TEST(AtomicFile, ModeIsThatOfANewFile) {
  test::TempDir dir("atomic-file");
  const std::string path = dir.write("out.txt", "previous\n");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  {
    const UmaskFor scope(027);
    AtomicFile file(path);
    file.commit();
  }
  EXPECT_EQ(fs::status(path).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// A target that is not a regular file (a pipe here; /dev/null alike) is written in place:
// renaming over it would replace it with a regular file.
TEST(AtomicFile, PipeIsWrittenInPlace) {
  test::TempDir dir("atomic-file");
  const std::string path = (dir.path() / "pipe").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // A reader first, so that opening the pipe to write does not wait.
  const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  AtomicFile file(path);
  file.write("through the pipe\n");
  file.commit();
  char text[64] = {};
  EXPECT_EQ(::read(reader, text, sizeof text), 17);
  ::close(reader);
  EXPECT_EQ(std::string(text), "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(path));
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"pipe"});
}

// A path naming an open descriptor (`-o /dev/stdout` with standard output a file, as a shell's
// `> out.txt` or `>> out.txt` leaves it) writes through that descriptor at its offset: the
// file is neither replaced nor rewritten from its start, and what was written before stays.
TEST(AtomicFile, OpenDescriptorIsWrittenAtItsOffset) {
  test::TempDir dir("atomic-file");
  const std::string path = dir.write("out.txt", "before\n");
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  struct stat old_inode {};
  ASSERT_EQ(::fstat(fd, &old_inode), 0);
  {
    AtomicFile file("/proc/self/fd/" + std::to_string(fd));
    file.write("the dump\n");
    file.commit();
  }
  ASSERT_EQ(::write(fd, "after\n", 6), 6);  // the descriptor still works, still on that file
  ::close(fd);
  EXPECT_EQ(read_file(path), "before\nthe dump\nafter\n");
  struct stat new_inode {};
  ASSERT_EQ(::stat(path.c_str(), &new_inode), 0);
  EXPECT_EQ(new_inode.st_ino, old_inode.st_ino);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
  // A descriptor that is not open is an error naming the path.
  try {
    AtomicFile closed("/dev/fd/" + std::to_string(fd));
    ADD_FAILURE() << "no error for a closed descriptor";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/fd/" + std::to_string(fd) + ": cannot write to it"),
              std::string::npos)
        << e.what();
  }
}

// A symbolic link stays a link: the file it points to gets the new content.
TEST(AtomicFile, SymbolicLinkKeepsPointingAtTheNewContent) {
  test::TempDir dir("atomic-file");
  const std::string real = dir.write("real.txt", "previous\n");
  const fs::path link = dir.path() / "link.txt";
  fs::create_symlink("real.txt", link);
  AtomicFile file(link.string());
  file.write("new\n");
  file.commit();
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(real), "new\n");
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"link.txt", "real.txt"}));
}

}  // namespace
}  // namespace cubekit
