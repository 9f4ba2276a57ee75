#include "rigid/contact_list.h"

#include <utility>

namespace vbd {

void PendingContacts::deliver() {
    if (list) list->settle();
}

// Shares o's records once they are on the host: a pending fetch writes into the one list it waits for.
ContactList::ContactList(const ContactList& o) : lost_(o.lost_) {
    o.get();
    records_ = o.records_;
}

ContactList& ContactList::operator=(const ContactList& o) {
    if (this != &o) {
        o.get();
        unhook();
        records_ = o.records_;
        lost_ = o.lost_;
    }
    return *this;
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

std::shared_ptr<PendingContacts> ContactList::defer(std::function<void(Contact* dst, size_t n)> fetch) {
    unhook();
    lost_ = false;
    // The fetch writes into the storage: never storage a copy shares (sized as the list, contents dead).
    if (records_.shared()) {
        const size_t n = records_.size();
        records_.overwrite().resize(n);
    }
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
            std::vector<Contact>& r = records_.edit();  // unshared (defer): no copy
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
