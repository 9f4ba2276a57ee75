#include "rigid/contact_list.h"

#include <utility>

namespace vbd {

void PendingContacts::deliver() {
    if (list) list->settle();
}

ContactList::ContactList(const ContactList& o) : records_(o.get()), lost_(o.lost_) {}

ContactList& ContactList::operator=(const ContactList& o) {
    if (this != &o) {
        const std::vector<Contact>& r = o.get();
        unhook();
        records_ = r;
        lost_ = o.lost_;
    }
    return *this;
}

ContactList::ContactList(ContactList&& o) noexcept
    : records_(std::move(o.records_)), pending_(std::move(o.pending_)), lost_(o.lost_) {
    if (pending_) pending_->list = this;
    o.records_.clear();
}

ContactList& ContactList::operator=(ContactList&& o) noexcept {
    if (this != &o) {
        unhook();
        records_ = std::move(o.records_);
        pending_ = std::move(o.pending_);
        lost_ = o.lost_;
        if (pending_) pending_->list = this;
        o.records_.clear();
    }
    return *this;
}

ContactList::~ContactList() { unhook(); }

std::vector<Contact>& ContactList::overwrite() {
    unhook();
    lost_ = false;
    return records_;
}

std::shared_ptr<PendingContacts> ContactList::defer(std::function<void(Contact* dst, size_t n)> fetch) {
    unhook();
    lost_ = false;
    pending_ = std::make_shared<PendingContacts>();
    pending_->fetch = std::move(fetch);
    pending_->list = this;
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
            link->fetch(records_.data(), records_.size());
            fetched = true;
        } catch (...) {  // a broken device: its next step reports the error; the solver goes on without
        }
    }
    if (!fetched) {
        records_.clear();
        lost_ = true;
    }
}

}  // namespace vbd
