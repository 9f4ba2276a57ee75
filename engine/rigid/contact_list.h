#pragma once
// The rigid solver's contact records, which a device step may leave on the device.
//
// Why: with the narrow phase and the matching on the device (RigidStepper::setDeviceContacts) the records are
// made there and the next step matches against the device's copy, so the host needs them only for its own
// readers: the app's contact markers, a CPU step, a copy of the solver (the timeline). Downloading them every
// step moved 200 bytes per contact (11.4 MB for the 10,000-box pile) that nobody read. Instead the device
// step defers them (defer()): the list knows how many there are (size()), and the first read on the host
// (get()) fetches them. A writer that rewrites every record (the next detection) overwrites them unread.
//
// The records live in memory the device step reuses, so the two sides hold a PendingContacts link and each
// unhooks itself: the list when it has its records (fetched, overwritten) or goes away, the device step when
// it is about to reuse that memory or goes away, by delivering the records first (PendingContacts::deliver).
// Reads on the host are single-threaded with respect to the link, as the solver's steps are: a const read
// that fetches writes the list (mutable), so two threads must not read a list with pending records at once.
//
// A copy of the list shares its records (backend/shared_records.h: the timeline's save of the solver every
// frame copied 11.4 MB of the pile's contacts); a step's new list is written into storage recycled from the
// lists the copies let go. A copy of a list whose records are pending keeps them pending where the device
// step can copy them within the device (PendingContacts::keep): the save then moves no record to the host,
// and the copy's first read fetches from its own device copy, which the device step's reuse does not touch.
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "backend/shared_records.h"
#include "rigid/constraints.h"

namespace vbd {

class ContactList;

using ContactFetch = std::function<void(Contact* dst, size_t n)>;

// A copy of pending records made within the device's memory (PendingContacts::keep), which no step reuses:
// its fetch, and for a device step of the same executor the records themselves (`space` names the executor's
// memory, gpu/rigid_pipeline.h; `done` its mark after the copy): stepping a solver that holds such a copy (a
// timeline frame restored) copies them within the device instead of through the host.
struct KeptContacts {
    ContactFetch fetch;
    const void* space = nullptr;
    const Contact* records = nullptr;
    void* done = nullptr;
};

// The records a device step left on the device for one list. fetch(dst, n) writes them into dst; it is the
// device step's, and null once that step has gone away.
struct PendingContacts {
    ContactFetch fetch;
    // A copy of the same records made now within the device's memory, which no step reuses (what a copy of
    // the list holds): its fetch is null where none can be made; keep is null where the device step offers
    // none.
    std::function<KeptContacts()> keep;
    KeptContacts kept;            // where the records are a kept copy (a copy's list): that copy, else none
    ContactList* list = nullptr;  // the list still waiting for them, or null
    size_t count = 0;             // how many records
    // Writes the records into the waiting list and unhooks it (a no-op once it has them).
    void deliver();
};

class ContactList {
  public:
    ContactList() = default;
    // Shares o's records; pending ones stay pending in a copy kept on the device where the device step offers
    // one (PendingContacts::keep), else are fetched into o first.
    ContactList(const ContactList& o);
    ContactList& operator=(const ContactList& o);
    ContactList(ContactList&& o) noexcept;
    ContactList& operator=(ContactList&& o) noexcept;
    ~ContactList();

    // The number of records, known without them.
    size_t size() const { return pending_ ? pending_->count : records_.size(); }
    // The records; pending ones are fetched first. Writing in place copies them where a copy shares them.
    const std::vector<Contact>& get() const {
        if (pending_) settle();
        return records_.get();
    }
    std::vector<Contact>& get() {
        if (pending_) settle();
        return records_.edit();
    }
    // For a writer that rewrites or drops every record: pending ones are dropped unread. Contents dead (the
    // caller sizes the list), and never storage a copy shares.
    std::vector<Contact>& overwrite();
    // A new list written while this one is read (the matching), then made the list: storage from the pool of
    // lists this one let go.
    std::shared_ptr<std::vector<Contact>> fresh() { return records_.take(); }
    void replace(std::shared_ptr<std::vector<Contact>> next);
    void reserve(size_t n) { records_.reserve(n); }  // room in the list and in one spare
    bool shared() const { return records_.shared(); }
    RecordStats storageStats() const { return records_.stats(); }
    // The device step: the current size() records are on the device until the first get(). The caller keeps
    // the link and delivers through it before it reuses their memory.
    std::shared_ptr<PendingContacts> defer(ContactFetch fetch);
    bool pending() const { return pending_ != nullptr; }
    // The link of pending records (null when none are pending): a device step reads a kept copy's location.
    const PendingContacts* pendingLink() const { return pending_.get(); }
    // A fetch that failed (the device is gone, or its step went away without delivering) leaves no records:
    // the list is then empty and lost() until the next overwrite(). The solver then matches without a warm
    // start.
    bool lost() const { return lost_; }

  private:
    friend struct PendingContacts;
    void settle() const;  // runs the pending fetch
    void unhook() const;  // forgets the pending records
    void copyFrom(const ContactList& o);

    mutable SharedRecords<Contact> records_;
    mutable std::shared_ptr<PendingContacts> pending_;
    mutable bool lost_ = false;
};

}  // namespace vbd
