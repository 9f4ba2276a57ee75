#include "render/interop_host.h"

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "gpu/body_instances.h"
#include "gpu/bounded_wait.h"
#include "render/vk_context.h"
#include "rigid/rigid_body.h"

namespace vbdgui {

namespace {

template <typename Fn>
Fn deviceProc(VkDevice device, const char* name) {
    auto fn = reinterpret_cast<Fn>(vkGetDeviceProcAddr(device, name));
    if (!fn) throw VulkanError(std::string(name) + " is not available (VK_KHR_timeline_semaphore)");
    return fn;
}

class HostVertexWriter final : public vbd::ExternalVertexWriter {
  public:
    HostVertexWriter(const HostInteropTarget& t, int n, const vbd::SurfaceAdjacency& adj,
                     const vbd::VertexLayout& layout)
        : t_(t),
          n_(n),
          adj_(adj),
          layout_(layout),
          wait_(deviceProc<PFN_vkWaitSemaphoresKHR>(t.device, "vkWaitSemaphoresKHR")),
          signal_(deviceProc<PFN_vkSignalSemaphoreKHR>(t.device, "vkSignalSemaphoreKHR")),
          value_(deviceProc<PFN_vkGetSemaphoreCounterValueKHR>(t.device, "vkGetSemaphoreCounterValueKHR")) {
        worker_ = std::thread([this] { run(); });
    }
    ~HostVertexWriter() override {
        teardown();
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }

    bool readsInPlace(const vbd::DeviceParticles& src) const override {
        return src.current && src.x && src.n == n_ && src.cudaDevice == -1;
    }

    bool write(const vbd::DeviceParticles& src, const vbd::Vec3* hostPositions, const float* scalar,
               int numScalars, const vbd::BodyInstanceFrame* bodies, uint32_t slot, uint64_t waitRenderDone,
               uint64_t frame) override {
        if (slot >= t_.slots.size())
            throw std::out_of_range("interop: no vertex buffer slot " + std::to_string(slot));
        const bool inPlace = readsInPlace(src);
        if (!inPlace && !hostPositions && n_ > 0)
            throw std::invalid_argument("interop: no current positions in host memory and no host copy");
        // The step's stream: this frame's positions, rounded to float, and the bodies' states into the
        // write's own copy at once (the CUDA writer's step stream waits for the slot's last records kernel
        // before it reuses the slot's scratch; a host wait there would hold the simulation thread, and with
        // it the app's teardown of a lost device, on a renderDone nobody signals).
        Job j;
        j.x.resize(size_t(n_));
        if (!inPlace) {
            std::memcpy(static_cast<void*>(j.x.data()), hostPositions, size_t(n_) * sizeof(vbd::Vec3));
        } else if (src.doublePrecision) {
            const vbd::ToFloatStage<double> round{static_cast<const vbd::Vec3d*>(src.x), j.x.data()};
            for (int i = 0; i < n_; ++i) round(i);
        } else {
            std::memcpy(static_cast<void*>(j.x.data()), src.x, size_t(n_) * sizeof(vbd::Vec3));
        }
        j.slot = slot;
        j.waitRenderDone = waitRenderDone;
        j.frame = frame;
        const size_t m = size_t(numScalars > 0 ? std::min(numScalars, n_) : 0);
        j.scalar.assign(scalar, scalar + m);
        // vbd::bodyInstancesWritable's rule, with a state in host memory (cudaDevice -1 also says "no device
        // rigid step": the states must be there).
        const bool wroteBodies = slot < t_.instanceSlots.size() &&
                                 vbd::bodyInstancesWritable(bodies, t_.instanceCapacity, -1) &&
                                 bodies->bodies.state != nullptr;
        if (wroteBodies) {
            j.states.assign(bodies->bodies.state, bodies->bodies.state + bodies->bodies.n);
            j.table.assign(bodies->table, bodies->table + bodies->count);
        }
        {
            std::lock_guard<std::mutex> lk(m_);
            if (failed_) throw std::runtime_error("interop: " + failure_);
            if (waitRenderDone > lastRenderWait_) lastRenderWait_ = waitRenderDone;
            queue_.push_back(std::move(j));
        }
        cv_.notify_all();
        return wroteBodies;
    }

    int instanceCapacity() const override { return t_.instanceCapacity; }

    // Everything written so far done (or dropped after a failure), as the CUDA writer's event wait:
    // unbounded.
    void finish() override {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return (queue_.empty() && !busy_) || failed_ || stop_; });
    }

  private:
    struct Job {
        uint32_t slot = 0;
        uint64_t waitRenderDone = 0, frame = 0;
        std::vector<vbd::Vec3> x;  // the frame's float positions
        std::vector<vbd::RigidBodyState> states;
        std::vector<float> scalar;
        std::vector<vbd::BodyInstanceShape> table;
    };

    // The CUDA writer's release(): the queue drained within kInteropTeardownWait, or renderDone signalled
    // from the host up to the last value a write waits for (the renderer will not: a lost device, a frame
    // begun and never submitted; the app's teardown comes after the Vulkan device is idle, so no submit's
    // signal of it is pending), and drained again; what still does not drain is dropped, and later writes
    // throw.
    void teardown() {
        if (drained()) return;
        uint64_t target = 0;
        {
            std::lock_guard<std::mutex> lk(m_);
            target = lastRenderWait_;
        }
        uint64_t now = 0;
        if (value_(t_.device, t_.renderDone, &now) == VK_SUCCESS && now < target) {
            std::fprintf(
                stderr,
                "vbdlab: interop: the renderer has not signalled frame %llu in %lld ms (a lost Vulkan "
                "device?): the host-executor writer signals it itself to drain\n",
                (unsigned long long)target, (long long)vbd::kInteropTeardownWait.count());
            auto si = vkInfo<VkSemaphoreSignalInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO_KHR);
            si.semaphore = t_.renderDone;
            si.value = target;
            signal_(t_.device, &si);
        }
        if (drained()) return;
        std::fprintf(stderr,
                     "vbdlab: interop: the host-executor writer's queue did not drain; its writes are "
                     "dropped\n");
        std::lock_guard<std::mutex> lk(m_);
        queue_.clear();
        failed_ = true;
        failure_ = "the writer's queue was dropped at its teardown";
        stop_ = true;
        cv_.notify_all();
    }

    bool drained() {
        return vbd::waitBounded(
            [&] {
                std::lock_guard<std::mutex> lk(m_);
                return queue_.empty() && !busy_;
            },
            vbd::kInteropTeardownWait);
    }

    void run() {
        for (;;) {
            Job j;
            {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
                if (stop_) return;
                j = std::move(queue_.front());
                queue_.pop_front();
                busy_ = true;
            }
            const bool ok = waitRender(j.waitRenderDone) && emit(j);
            {
                std::lock_guard<std::mutex> lk(m_);
                busy_ = false;
                if (!ok && !stop_ && !failed_) {
                    failed_ = true;
                    queue_.clear();
                }
            }
            cv_.notify_all();
        }
    }

    // renderDone >= value, in slices so that a teardown that gives up (stop_) ends the wait.
    bool waitRender(uint64_t value) {
        if (value == 0) return true;
        auto wi = vkInfo<VkSemaphoreWaitInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO_KHR);
        wi.semaphoreCount = 1;
        wi.pSemaphores = &t_.renderDone;
        wi.pValues = &value;
        for (;;) {
            const VkResult r = wait_(t_.device, &wi, 50'000'000);  // 50 ms
            if (r == VK_SUCCESS) return true;
            if (r != VK_TIMEOUT) return fail("vkWaitSemaphores(renderDone): " + std::string(vkResultName(r)));
            std::lock_guard<std::mutex> lk(m_);
            if (stop_) return false;
        }
    }

    // The records (and instances) into the slot's buffers, then simDone = frame.
    bool emit(const Job& j) {
        if (n_ > 0)
            vbd::fillVertexRecords(j.x.data(), n_, adj_, j.scalar.data(), int(j.scalar.size()), layout_,
                                   static_cast<float*>(t_.slots[j.slot]));
        if (!j.table.empty()) {
            auto* out = static_cast<vbd::BodyInstanceRecord*>(t_.instanceSlots[j.slot]);
            const vbd::BodyInstanceStage stage{j.states.data(), j.table.data(), out};
            for (int k = 0; k < int(j.table.size()); ++k) stage(k);
        }
        auto si = vkInfo<VkSemaphoreSignalInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO_KHR);
        si.semaphore = t_.simDone;
        si.value = j.frame;
        const VkResult r = signal_(t_.device, &si);
        return r == VK_SUCCESS || fail("vkSignalSemaphore(simDone): " + std::string(vkResultName(r)));
    }

    bool fail(const std::string& what) {
        std::fprintf(stderr, "vbdlab: interop: the host-executor writer stops: %s\n", what.c_str());
        std::lock_guard<std::mutex> lk(m_);
        failure_ = what;
        return false;
    }

    HostInteropTarget t_;
    int n_;
    vbd::SurfaceAdjacency adj_;
    vbd::VertexLayout layout_;
    PFN_vkWaitSemaphoresKHR wait_;
    PFN_vkSignalSemaphoreKHR signal_;
    PFN_vkGetSemaphoreCounterValueKHR value_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> queue_;
    bool busy_ = false, stop_ = false, failed_ = false;
    std::string failure_;
    uint64_t lastRenderWait_ = 0;
    std::thread worker_;
};

}  // namespace

std::unique_ptr<vbd::ExternalVertexWriter> makeHostVertexWriter(const HostInteropTarget& target,
                                                                int numVertices,
                                                                const vbd::SurfaceAdjacency& adj,
                                                                const vbd::VertexLayout& layout) {
    return std::make_unique<HostVertexWriter>(target, numVertices, adj, layout);
}

}  // namespace vbdgui
