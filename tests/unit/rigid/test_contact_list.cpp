// rigid/contact_list.h: records deferred to a device step come in on the first read and never after; a
// rewrite drops them unread; the link follows the list when it moves and is cut when it goes away; a failed
// fetch leaves an empty, lost list.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "rigid/contact_list.h"

using namespace vbd;

namespace {

// A stand-in for the device's copy: fetch writes key = 100 + i and counts its calls.
struct Device {
    int fetches = 0;
    std::function<void(Contact*, size_t)> fetch() {
        return [this](Contact* dst, size_t n) {
            ++fetches;
            for (size_t i = 0; i < n; ++i) dst[i].key = uint32_t(100 + i);
        };
    }
};

void sized(ContactList& l, size_t n) { l.overwrite().assign(n, Contact{}); }

}  // namespace

TEST(ContactList, DeferredRecordsAreFetchedOnceOnFirstRead) {
    Device dev;
    ContactList l;
    sized(l, 3);
    const std::shared_ptr<PendingContacts> link = l.defer(dev.fetch());
    EXPECT_TRUE(l.pending());
    EXPECT_EQ(l.size(), 3u);  // known without the records
    EXPECT_EQ(dev.fetches, 0);
    const ContactList& c = l;
    EXPECT_EQ(c.get()[2].key, 102u);
    EXPECT_EQ(l.get()[0].key, 100u);
    EXPECT_EQ(dev.fetches, 1);
    EXPECT_FALSE(l.pending());
    EXPECT_EQ(link->list, nullptr);
    link->deliver();  // nothing waits any more
    EXPECT_EQ(dev.fetches, 1);
}

TEST(ContactList, ARewriteDropsPendingRecordsUnread) {
    Device dev;
    ContactList l;
    sized(l, 3);
    const std::shared_ptr<PendingContacts> link = l.defer(dev.fetch());
    l.overwrite().resize(5);
    EXPECT_FALSE(l.pending());
    EXPECT_EQ(link->list, nullptr);
    link->deliver();
    EXPECT_EQ(l.get().size(), 5u);
    EXPECT_EQ(dev.fetches, 0);
}

TEST(ContactList, DeliverWritesTheRecordsBeforeTheDeviceReusesThem) {
    Device dev;
    ContactList l;
    sized(l, 2);
    const std::shared_ptr<PendingContacts> link = l.defer(dev.fetch());
    link->deliver();
    link->fetch = nullptr;  // the device step's memory is gone
    EXPECT_FALSE(l.pending());
    EXPECT_EQ(l.get()[1].key, 101u);
    EXPECT_FALSE(l.lost());
}

TEST(ContactList, TheLinkFollowsAMoveAndACopyFetchesFirst) {
    Device dev;
    ContactList a;
    sized(a, 2);
    const std::shared_ptr<PendingContacts> link = a.defer(dev.fetch());
    ContactList b(std::move(a));
    EXPECT_EQ(link->list, &b);
    ContactList c;
    c = std::move(b);
    EXPECT_EQ(link->list, &c);
    const ContactList d(c);  // the copy fetches c's records first
    EXPECT_EQ(dev.fetches, 1);
    EXPECT_FALSE(c.pending());
    EXPECT_EQ(d.get()[1].key, 101u);
    EXPECT_EQ(c.get()[1].key, 101u);
    EXPECT_EQ(dev.fetches, 1);
}

TEST(ContactList, AListThatGoesAwayCutsTheLink) {
    Device dev;
    std::shared_ptr<PendingContacts> link;
    {
        ContactList l;
        sized(l, 2);
        link = l.defer(dev.fetch());
    }
    EXPECT_EQ(link->list, nullptr);
    link->deliver();
    EXPECT_EQ(dev.fetches, 0);
}

TEST(ContactList, AFailedFetchLeavesAnEmptyLostList) {
    for (const bool gone : {false, true}) {
        ContactList l;
        sized(l, 4);
        const std::shared_ptr<PendingContacts> link =
            l.defer([](Contact*, size_t) { throw std::runtime_error("device lost"); });
        if (gone) link->fetch = nullptr;  // the device step went away without delivering
        EXPECT_TRUE(l.get().empty());
        EXPECT_TRUE(l.lost());
        EXPECT_FALSE(l.pending());
        l.overwrite().resize(1);
        EXPECT_FALSE(l.lost());
    }
}

TEST(ContactList, ACopySharesTheRecordsAndADeferNeverWritesThem) {
    Device dev;
    ContactList a;
    a.overwrite().assign(3, Contact{});
    a.get()[0].key = 7;
    const ContactList saved(a);                                    // the timeline's copy
    EXPECT_EQ(saved.get().data(), std::as_const(a).get().data());  // a read: no copy
    EXPECT_TRUE(a.shared());
    const std::shared_ptr<PendingContacts> link = a.defer(dev.fetch());  // the device writes a new list
    EXPECT_EQ(a.size(), 3u);
    EXPECT_EQ(a.get()[0].key, 100u);
    EXPECT_EQ(saved.get()[0].key, 7u);
    EXPECT_EQ(a.storageStats().copies, 0u);
}
