// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The part of the Identity Registry the Reputation Registry reads.
interface IIdentityRegistry {
    function ownerOf(uint256 agentId) external view returns (address);
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);
}

/// ERC-8004 (Trustless Agents) Reputation Registry, written from the specification's "Reputation
/// Registry" section: feedback (value, valueDecimals 0-18, tag1, tag2 stored; endpoint, feedbackURI,
/// feedbackHash emitted only) from any client address except the agent's owner or operators,
/// 1-indexed per client and agent; revocation by the client; responses appended by anyone; reads.
contract ReputationRegistry {
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    error AlreadyInitialized();
    error UnknownAgent();
    error BadDecimals();
    error SelfFeedback();
    error UnknownFeedback();
    error AlreadyRevoked();
    error ClientsRequired();

    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    address private _identityRegistry;
    // agentId => client => feedbackIndex (1-based) => feedback
    mapping(uint256 => mapping(address => mapping(uint64 => Feedback))) private _feedback;
    mapping(uint256 => mapping(address => uint64)) private _lastIndex;
    mapping(uint256 => address[]) private _clients;
    // agentId => client => feedbackIndex => responders, and responder => count
    mapping(uint256 => mapping(address => mapping(uint64 => address[]))) private _responders;
    mapping(uint256 => mapping(address => mapping(uint64 => mapping(address => uint64)))) private _responseCount;

    constructor(address identityRegistry_) {
        if (identityRegistry_ != address(0)) _identityRegistry = identityRegistry_;
    }

    /// Sets the Identity Registry once (the specification's initializer; the constructor may already have).
    function initialize(address identityRegistry_) external {
        if (_identityRegistry != address(0)) revert AlreadyInitialized();
        _identityRegistry = identityRegistry_;
    }

    function getIdentityRegistry() external view returns (address identityRegistry) {
        return _identityRegistry;
    }

    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > 18) revert BadDecimals();
        IIdentityRegistry identity = IIdentityRegistry(_identityRegistry);
        try identity.ownerOf(agentId) returns (address) {} catch {
            revert UnknownAgent();
        }
        if (identity.isAuthorizedOrOwner(msg.sender, agentId)) revert SelfFeedback();

        uint64 index = _record(agentId, value, valueDecimals, tag1, tag2);
        _emitFeedback(agentId, index, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    function _record(uint256 agentId, int128 value, uint8 valueDecimals, string calldata tag1, string calldata tag2)
        private
        returns (uint64 index)
    {
        index = _lastIndex[agentId][msg.sender] + 1;
        if (index == 1) _clients[agentId].push(msg.sender);
        _lastIndex[agentId][msg.sender] = index;
        _feedback[agentId][msg.sender][index] = Feedback(value, valueDecimals, false, tag1, tag2);
    }

    function _emitFeedback(
        uint256 agentId,
        uint64 index,
        int128 value,
        uint8 valueDecimals,
        string memory tag1,
        string memory tag2,
        string memory endpoint,
        string memory feedbackURI,
        bytes32 feedbackHash
    ) private {
        emit NewFeedback(
            agentId, msg.sender, index, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        if (feedbackIndex == 0 || feedbackIndex > _lastIndex[agentId][msg.sender]) revert UnknownFeedback();
        Feedback storage f = _feedback[agentId][msg.sender][feedbackIndex];
        if (f.isRevoked) revert AlreadyRevoked();
        f.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        if (feedbackIndex == 0 || feedbackIndex > _lastIndex[agentId][clientAddress]) revert UnknownFeedback();
        if (_responseCount[agentId][clientAddress][feedbackIndex][msg.sender] == 0) {
            _responders[agentId][clientAddress][feedbackIndex].push(msg.sender);
        }
        _responseCount[agentId][clientAddress][feedbackIndex][msg.sender]++;
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ClientsRequired();
        // Values are brought to 18 decimals and averaged; the average is given with 18 decimals.
        int256 total;
        for (uint256 c; c < clientAddresses.length; c++) {
            (uint64 n, int256 sum) = _sumClient(agentId, clientAddresses[c], tag1, tag2);
            count += n;
            total += sum;
        }
        if (count > 0) summaryValue = int128(total / int256(uint256(count)));
        summaryValueDecimals = 18;
    }

    function _sumClient(uint256 agentId, address client, string memory tag1, string memory tag2)
        private
        view
        returns (uint64 n, int256 sum)
    {
        uint64 last = _lastIndex[agentId][client];
        for (uint64 i = 1; i <= last; i++) {
            Feedback storage f = _feedback[agentId][client][i];
            if (f.isRevoked || !_matches(f, tag1, tag2)) continue;
            sum += int256(f.value) * int256(10 ** (18 - f.valueDecimals));
            n++;
        }
    }

    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        if (feedbackIndex == 0 || feedbackIndex > _lastIndex[agentId][clientAddress]) revert UnknownFeedback();
        Feedback storage f = _feedback[agentId][clientAddress][feedbackIndex];
        return (f.value, f.valueDecimals, f.tag1, f.tag2, f.isRevoked);
    }

    struct FeedbackList {
        address[] clients;
        uint64[] feedbackIndexes;
        int128[] values;
        uint8[] valueDecimals;
        string[] tag1s;
        string[] tag2s;
        bool[] revokedStatuses;
        uint256 length;
        string tag1;
        string tag2;
        bool includeRevoked;
    }

    function readAllFeedback(
        uint256 agentId,
        address[] memory clientAddresses,
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory,
            uint64[] memory,
            int128[] memory,
            uint8[] memory,
            string[] memory,
            string[] memory,
            bool[] memory
        )
    {
        FeedbackList memory list = _build(agentId, clientAddresses, tag1, tag2, includeRevoked);
        return (
            list.clients, list.feedbackIndexes, list.values, list.valueDecimals, list.tag1s, list.tag2s, list.revokedStatuses
        );
    }

    function _build(
        uint256 agentId,
        address[] memory clientAddresses,
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    ) private view returns (FeedbackList memory list) {
        address[] memory from = clientAddresses.length > 0 ? clientAddresses : _clients[agentId];
        list = _allocate(agentId, from);
        list.tag1 = tag1;
        list.tag2 = tag2;
        list.includeRevoked = includeRevoked;
        for (uint256 c; c < from.length; c++) _collect(list, agentId, from[c]);
        _truncate(list);
    }

    function _truncate(FeedbackList memory list) private pure {
        uint256 k = list.length;
        address[] memory clients = list.clients;
        uint64[] memory feedbackIndexes = list.feedbackIndexes;
        int128[] memory values = list.values;
        uint8[] memory valueDecimals = list.valueDecimals;
        string[] memory tag1s = list.tag1s;
        string[] memory tag2s = list.tag2s;
        bool[] memory revokedStatuses = list.revokedStatuses;
        assembly {
            mstore(clients, k)
            mstore(feedbackIndexes, k)
            mstore(values, k)
            mstore(valueDecimals, k)
            mstore(tag1s, k)
            mstore(tag2s, k)
            mstore(revokedStatuses, k)
        }
    }

    function _allocate(uint256 agentId, address[] memory from) private view returns (FeedbackList memory list) {
        uint256 n;
        for (uint256 c; c < from.length; c++) n += _lastIndex[agentId][from[c]];
        list.clients = new address[](n);
        list.feedbackIndexes = new uint64[](n);
        list.values = new int128[](n);
        list.valueDecimals = new uint8[](n);
        list.tag1s = new string[](n);
        list.tag2s = new string[](n);
        list.revokedStatuses = new bool[](n);
    }

    function _collect(
        FeedbackList memory list,
        uint256 agentId,
        address client
    ) private view {
        uint64 last = _lastIndex[agentId][client];
        for (uint64 i = 1; i <= last; i++) {
            Feedback storage f = _feedback[agentId][client][i];
            if ((f.isRevoked && !list.includeRevoked) || !_matches(f, list.tag1, list.tag2)) continue;
            uint256 k = list.length++;
            list.clients[k] = client;
            list.feedbackIndexes[k] = i;
            list.values[k] = f.value;
            list.valueDecimals[k] = f.valueDecimals;
            list.tag1s[k] = f.tag1;
            list.tag2s[k] = f.tag2;
            list.revokedStatuses[k] = f.isRevoked;
        }
    }

    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count)
    {
        address[] memory clients = clientAddress == address(0) ? _clients[agentId] : _single(clientAddress);
        for (uint256 c; c < clients.length; c++) {
            uint64 first = feedbackIndex == 0 ? 1 : feedbackIndex;
            uint64 last = feedbackIndex == 0 ? _lastIndex[agentId][clients[c]] : feedbackIndex;
            for (uint64 i = first; i <= last; i++) {
                mapping(address => uint64) storage counts = _responseCount[agentId][clients[c]][i];
                if (responders.length == 0) {
                    address[] storage all = _responders[agentId][clients[c]][i];
                    for (uint256 r; r < all.length; r++) count += counts[all[r]];
                } else {
                    for (uint256 r; r < responders.length; r++) count += counts[responders[r]];
                }
            }
        }
    }

    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    function _matches(Feedback storage f, string memory tag1, string memory tag2) private view returns (bool) {
        if (bytes(tag1).length > 0 && keccak256(bytes(f.tag1)) != keccak256(bytes(tag1))) return false;
        if (bytes(tag2).length > 0 && keccak256(bytes(f.tag2)) != keccak256(bytes(tag2))) return false;
        return true;
    }

    function _single(address a) private pure returns (address[] memory out) {
        out = new address[](1);
        out[0] = a;
    }
}
