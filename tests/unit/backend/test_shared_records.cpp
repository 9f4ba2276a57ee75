// backend/shared_records.h: copies share a list until one writes (which copies and is counted); storage comes
// back to the owner that made it when its last holder lets go, from any thread, and the owner's next take()
// reuses it instead of allocating; storage outlives an owner that went away.
#include <gtest/gtest.h>

#include <thread>
#include <utility>

#include "backend/shared_records.h"

using namespace vbd;

namespace {

// An owner with the list {1, 2, 3} in storage of room `room`.
SharedRecords<int> owner(size_t room) {
    SharedRecords<int> a;
    a.overwrite().reserve(room);
    a.overwrite().assign({1, 2, 3});
    return a;
}

}  // namespace

TEST(SharedRecords, ACopySharesUntilAWriteCopies) {
    SharedRecords<int> a = owner(8);
    SharedRecords<int> b(a);
    EXPECT_EQ(b.data(), a.data());
    EXPECT_TRUE(a.shared());
    EXPECT_EQ(a.stats().copies, 0u);
    b.edit()[0] = 9;  // b's own records now
    EXPECT_NE(b.data(), a.data());
    EXPECT_EQ(a.get()[0], 1);
    EXPECT_EQ(b.get()[0], 9);
    EXPECT_EQ(b.stats().copies, 1u);
    EXPECT_FALSE(a.shared());
    a.edit()[1] = 5;  // unshared: in place
    EXPECT_EQ(a.stats().copies, 0u);
}

TEST(SharedRecords, AnOverwriteNeverWritesSharedStorage) {
    SharedRecords<int> a = owner(8);
    const SharedRecords<int> b(a);
    a.overwrite().assign({7});
    EXPECT_EQ(b.get().size(), 3u);
    EXPECT_EQ(b.get()[0], 1);
    EXPECT_EQ(a.get()[0], 7);
    EXPECT_EQ(a.stats().copies, 0u);  // dead contents are not copied
}

TEST(SharedRecords, StorageComesBackToItsOwnerWhenTheLastHolderLetsGo) {
    SharedRecords<int> a = owner(1000);  // storage S, room 1000
    const size_t made = a.stats().allocations;
    auto held = std::make_unique<SharedRecords<int>>(a);  // a saved frame
    std::shared_ptr<std::vector<int>> next = a.take();    // the pool is empty: new storage
    EXPECT_EQ(a.stats().allocations, made + 1);
    next->assign({4});
    a.replace(std::move(next));  // S is the saved frame's alone
    held.reset();                // the frame is dropped: S goes back to a's pool
    const std::shared_ptr<std::vector<int>> again = a.take();
    EXPECT_EQ(a.stats().allocations, made + 1);
    EXPECT_GE(again->capacity(), 1000u);  // S, not a fresh vector
}

TEST(SharedRecords, StorageReleasedOnAnotherThreadComesBack) {
    SharedRecords<int> a = owner(500);
    SharedRecords<int> held(a);
    a.replace(a.take());
    const size_t made = a.stats().allocations;
    std::thread([h = std::move(held)]() mutable { h = SharedRecords<int>(); }).join();
    EXPECT_GE(a.take()->capacity(), 500u);
    EXPECT_EQ(a.stats().allocations, made);
}

TEST(SharedRecords, ThePoolKeepsOneSpareTheLargest) {
    SharedRecords<int> a;
    std::shared_ptr<std::vector<int>> s1 = a.take(), s2 = a.take();
    s1->reserve(10);
    s2->reserve(20);
    EXPECT_EQ(a.stats().allocations, 2u);
    s1.reset();
    s2.reset();  // the larger replaces the smaller
    EXPECT_GE(a.take()->capacity(), 20u);
    const size_t made = a.stats().allocations;
    const std::shared_ptr<std::vector<int>> t1 = a.take(), t2 = a.take();
    EXPECT_EQ(a.stats().allocations, made + 1);  // one came from the pool, one is new
}

TEST(SharedRecords, StorageOutlivesTheOwnerThatMadeIt) {
    auto a = std::make_unique<SharedRecords<int>>(owner(16));
    const SharedRecords<int> held(*a);
    a.reset();  // its pool is gone; the frame still reads its records and then frees them (ASan checks)
    EXPECT_EQ(held.get()[2], 3);
    EXPECT_EQ(held.size(), 3u);
}
