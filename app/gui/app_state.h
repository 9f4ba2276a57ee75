#pragma once
// Everything the GUI shows and edits lives in these structs (no function-local statics): the panels
// read and write them, the main loop acts on the requests they leave (rebuild, step, record, ...).
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/renderer.h"
#include "world/world.h"

namespace vbdgui {

// One simulated World and what is shown of it. Side-by-side mode runs two of these in lockstep.
struct Lab {
    std::string label = "A";
    vbd::SceneDesc desc;                // what the World was built from; material edits change it and rebuild
    std::shared_ptr<vbd::World> world;  // the latest snapshot published by the simulation thread
    std::unique_ptr<SceneGpu> gpu;
    DrawOptions draw;
    std::deque<std::vector<vbd::IterationRecord>> recent;  // last frames' convergence, newest last
    std::string note;                                      // e.g. "preview world"
    bool rebuild = false;                                  // material/dt changed: recreate the World
    bool solverDirty = false;                              // setSolver at the next step
    double stepMs = 0;                                     // wall time of the last World::step
    int shownFrame = -1;                                   // frame of the snapshot last drawn
};

struct PickState {
    bool active = false;
    int lab = 0;
    int particle = -1, body = -1;
    glm::vec3 grabLocal{0};  // body-frame grab point
    glm::vec3 anchor{0};     // world point grabbed
    glm::vec3 target{0};     // where the spring pulls
    float depth = 0;         // grab distance along the view ray
    float stiffness = 2e3f;  // N/m
};

struct RecordState {
    bool on = false;
    bool mp4 = false;  // pipe into ffmpeg when it exists, else PNG sequence
    int ffmpeg = -1;   // ffmpeg on PATH: -1 not checked yet, 0 no, 1 yes (checked once)
    std::string dir = "recording";
    int frame = 0;
    FILE* pipe = nullptr;
    std::string status;
};

struct Timing {
    double simMs = 0, uploadMs = 0, renderMs = 0, frameMs = 0, fps = 0;
};

struct EllipseState {
    float kappa = 100, angleDeg = 30;
    int sweeps = 10;
    bool show[4] = {true, true, true, true};  // bcd, cg, eigen, local
    bool pair = false;                        // the seed's "same kappa = 25, different BCD experience" pair
    bool nd = false;                          // random n-D block system (convergence curves)
    int ndBlocks = 8, ndSeed = 1;
    float ndCoupling = 0.6f, ndKappa = 1000;
    // n-D cache: recomputed when ndKey changes
    std::string ndKey, ndError;
    std::vector<float> ndCurves[4];
    double ndRho = 0, ndKappaActual = 1;
};

struct AppState {
    std::vector<std::string> sceneFiles;
    int sceneIndex = -1;     // into sceneFiles; -1 = built-in or --scene outside assets/
    std::string scenePath;   // "" = built-in default
    std::string sceneError;  // last failed load (shown until the next successful one)
    Lab labs[2];
    bool compare = false;  // side-by-side: labs[1] runs the same scene with its own settings
    bool playing = true;
    int stepRequests = 0;  // single steps requested while paused
    bool resetRequest = false;
    bool loadRequest = false;  // scene picker / reload: load loadPath ("" = built-in demo) at the next frame
    std::string loadPath;
    OrbitCamera camera;
    bool frameRequest = true;
    PickState pick;
    RecordState rec;
    Timing timing;
    EllipseState ellipse;
    int inspectParticle = -1;  // last picked vertex, shown in the inspector
    bool showPlots = true, showEllipse = true, showHelp = false;
    int throwRequests = 0;
    int historyWindow = 300;  // frames shown in the time plots
    // Viewport of the scene (window pixels), set by the layout each frame.
    float viewX = 0, viewY = 0, viewW = 1, viewH = 1;
};

inline constexpr int kRecentFrames = 6;
inline constexpr float kLeftPanelWidth = 370, kLeftPanelWidthCompare = 560, kRightPanelWidth = 430;
inline float leftPanelWidth(const AppState& a) {
    return a.compare ? kLeftPanelWidthCompare : kLeftPanelWidth;
}

}  // namespace vbdgui
