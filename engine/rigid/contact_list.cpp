#include "rigid/contact_list.h"

#include <utility>

namespace vbd {

void PendingContacts::deliver() {
    if (list) list->settle();
}

ContactList::ContactList(const ContactList& o) { copyFrom(o); }

ContactList& ContactList::operator=(const ContactList& o) {
    if (this != &o) copyFrom(o);
    return *this;
}

// Pending records: a copy of them kept on the device where the device step makes one, so that the copy stays
// pending (its fetch is its own, and a copy of the copy shares it: the kept records are never written);
// else fetched into o and shared, as records on the host are.
void ContactList::copyFrom(const ContactList& o) {
    unhook();
    lost_ = false;  // pending records are not lost
    if (o.pending_ && o.pending_->keep) {
        KeptContacts kept;
        try {
            kept = o.pending_->keep();
        } catch (...) {  // no device memory for it: fetched below
        }
        if (kept.fetch) {
            records_.release();
            pending_ = std::make_shared<PendingContacts>();
            pending_->fetch = kept.fetch;
            pending_->keep = [kept] { return kept; };
            pending_->kept = kept;
            pending_->list = this;
            pending_->count = o.pending_->count;
            return;
        }
    }
    o.get();  // a fetch that fails leaves o lost: read after it
    records_ = o.records_;
    lost_ = o.lost_;
}

ContactList::ContactList(ContactList&& o) noexcept
    : records_(std::move(o.records_)), pending_(std::move(o.pending_)), lost_(o.lost_) {
    if (pending_) pending_->list = this;
    o.records_ = SharedRecords<Contact>();
}

ContactList& ContactList::operator=(ContactList&& o) noexcept {
    if (this != &o) {
        unhook();
        records_ = std::move(o.records_);
        pending_ = std::move(o.pending_);
        lost_ = o.lost_;
        if (pending_) pending_->list = this;
        o.records_ = SharedRecords<Contact>();
    }
    return *this;
}

ContactList::~ContactList() { unhook(); }

std::vector<Contact>& ContactList::overwrite() {
    unhook();
    lost_ = false;
    return records_.overwrite();
}

void ContactList::replace(std::shared_ptr<std::vector<Contact>> next) {
    unhook();
    lost_ = false;
    records_.replace(std::move(next));
}

std::shared_ptr<PendingContacts> ContactList::defer(ContactFetch fetch) {
    unhook();
    lost_ = false;
    pending_ = std::make_shared<PendingContacts>();
    pending_->fetch = std::move(fetch);
    pending_->list = this;
    pending_->count = records_.size();
    return pending_;
}

void ContactList::unhook() const {
    if (!pending_) return;
    pending_->list = nullptr;
    pending_.reset();
}

void ContactList::settle() const {
    if (!pending_) return;
    // Unhooked before the fetch runs: a fetch that throws leaves the list lost, not waiting.
    const std::shared_ptr<PendingContacts> link = std::move(pending_);
    pending_.reset();
    link->list = nullptr;
    bool fetched = false;
    if (link->fetch) {
        try {
            // Contents dead, never storage a copy shares (a kept copy's list has none yet).
            std::vector<Contact>& r = records_.overwrite();
            r.resize(link->count);
            link->fetch(r.data(), r.size());
            fetched = true;
        } catch (...) {  // a broken device: its next step reports the error; the solver goes on without
        }
    }
    if (!fetched) {
        records_.overwrite().clear();
        lost_ = true;
    }
}

}  // namespace vbd
